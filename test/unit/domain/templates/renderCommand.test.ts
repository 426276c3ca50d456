import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { snapshotRequest } from '../../../../src/domain/templates/RequestSnapshot.js';
import { renderCommand } from '../../../../src/domain/templates/renderCommand.js';

const HOSTILE = [
  '$(touch /tmp/agw-pwned)',
  '`touch /tmp/agw-pwned`',
  "'; touch /tmp/agw-pwned; '",
  '"; touch /tmp/agw-pwned; "',
  'a\ntouch /tmp/agw-pwned',
  '; touch /tmp/agw-pwned',
  '| touch /tmp/agw-pwned',
  '&& touch /tmp/agw-pwned &',
  '$HOME ${HOME} \\ \\\\ \\" \\\'',
  "it's \"quoted\"",
  '*',
  '',
  '  spaced  out  ',
];

const withValue = (value: string) => snapshotRequest({ v: value }, {}, {});

/** What /bin/sh makes of the rendered command: the printf'd argument, byte for byte. */
const shell = (command: string): string => execFileSync('/bin/sh', ['-c', command], { encoding: 'utf8', cwd: '/tmp' });

describe('renderCommand', () => {
  it('quotes an unquoted value as one single-quoted word', () => {
    expect(renderCommand('echo {{body.v}}', withValue("it's"))).to.equal(`echo 'it'\\''s'`);
  });

  it('escapes a quote inside single quotes by closing and reopening', () => {
    expect(renderCommand("echo '{{body.v}}'", withValue("it's"))).to.equal(`echo 'it'\\''s'`);
  });

  it('escapes $, `, \\ and " inside double quotes', () => {
    expect(renderCommand('echo "{{body.v}}"', withValue('$x `y` \\ "z"'))).to.equal('echo "\\$x \\`y\\` \\\\ \\"z\\""');
  });

  it('tracks quotes and backslashes of the template itself', () => {
    const request = withValue('$v');
    expect(renderCommand(`echo "a'b" {{body.v}}`, request)).to.equal(`echo "a'b" '$v'`);
    expect(renderCommand(`echo 'a"b' {{body.v}}`, request)).to.equal(`echo 'a"b' '$v'`);
    expect(renderCommand('echo \\" {{body.v}}', request)).to.equal(`echo \\" '$v'`);
    expect(renderCommand('echo "x\\"{{body.v}}"', request)).to.equal('echo "x\\"\\$v"');
  });

  it('drops NUL bytes, which no shell argument can carry', () => {
    expect(renderCommand('echo {{body.v}}', withValue('a\0b'))).to.equal(`echo 'ab'`);
  });

  describe('through /bin/sh, every hostile value arrives literally and runs nothing', () => {
    const templates = [
      ['unquoted', "printf '%s' {{body.v}}"],
      ['single-quoted', "printf '%s' '{{body.v}}'"],
      ['double-quoted', `printf '%s' "{{body.v}}"`],
      ['inside a larger double-quoted word', `printf '%s' "<{{body.v}}>"`],
      ['inside a larger single-quoted word', `printf '%s' '<{{body.v}}>'`],
    ] as const;
    for (const [where, template] of templates) {
      it(where, () => {
        for (const value of HOSTILE) {
          const printed = shell(renderCommand(template, withValue(value)));
          const expected = template.includes('<') ? `<${value}>` : value;
          expect(printed, JSON.stringify(value)).to.equal(expected);
        }
        expect(shell('ls /tmp/agw-pwned 2>/dev/null || true')).to.equal('');
      });
    }
  });
});
