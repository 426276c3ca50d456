import { expect } from 'chai';
import { redactSecrets, redactSecretsDeep } from '../../../../src/domain/jobs/redact-secrets.js';

describe('redactSecrets', () => {
  const secrets = [
    { name: 'AGENT_DEPLOY_TOKEN', value: 'tok-9f8e7d6c' },
    { name: 'AGENT_DB_PASSWORD', value: 'hunter2hunter2' },
  ];

  it('replaces every occurrence of each value with the name of its variable', () => {
    expect(redactSecrets('token=tok-9f8e7d6c\npass=hunter2hunter2, again tok-9f8e7d6c.', secrets)).to.equal(
      'token=[redacted AGENT_DEPLOY_TOKEN]\npass=[redacted AGENT_DB_PASSWORD], again [redacted AGENT_DEPLOY_TOKEN].',
    );
  });

  it('leaves text without secrets unchanged', () => {
    expect(redactSecrets('nothing to see here', secrets)).to.equal('nothing to see here');
    expect(redactSecrets('anything', [])).to.equal('anything');
  });

  it('prefers the longer value where one secret contains another, and leaves no part of either', () => {
    const nested = [
      { name: 'AGENT_SHORT', value: 'abcd' },
      { name: 'AGENT_LONG', value: 'xxabcdyy' },
    ];
    expect(redactSecrets('[xxabcdyy] [abcd]', nested)).to.equal('[[redacted AGENT_LONG]] [[redacted AGENT_SHORT]]');
  });

  it('hides overlapping occurrences as one span, so no fragment shows beside the marker', () => {
    expect(redactSecrets('<xyxyxy>', [{ name: 'AGENT_R', value: 'xyxy' }])).to.equal('<[redacted AGENT_R]>');
    const crossing = [
      { name: 'AGENT_A', value: 'ABCDEF' },
      { name: 'AGENT_B', value: '12ABC' },
    ];
    expect(redactSecrets('(12ABCDEF)', crossing)).to.equal('([redacted AGENT_B])');
  });

  it('does not search the markers it wrote: a secret spelled like a marker word stays a single replacement', () => {
    const wordy = [
      { name: 'AGENT_A', value: 'secret-one' },
      { name: 'AGENT_B', value: 'redacted' },
    ];
    expect(redactSecrets('secret-one', wordy)).to.equal('[redacted AGENT_A]');
  });

  it('ignores values shorter than 4 characters', () => {
    expect(
      redactSecrets('a 1 abc yes', [
        { name: 'AGENT_FLAG', value: 'yes' },
        { name: 'AGENT_EMPTY', value: '' },
      ]),
    ).to.equal('a 1 abc yes');
  });

  it('hides the beginning of a value at the very end of the text, where output was cut at a size limit', () => {
    expect(redactSecrets('output… tok-9f8e', secrets)).to.equal('output… [redacted AGENT_DEPLOY_TOKEN]');
    expect(redactSecrets('ends in tok-', secrets)).to.equal('ends in [redacted AGENT_DEPLOY_TOKEN]');
    expect(redactSecrets('ends in tok', secrets)).to.equal('ends in tok');
    expect(redactSecrets('tok-9f8e then more', secrets)).to.equal('tok-9f8e then more');
  });

  it('hides the end of a value at the very beginning of the text, where a long log was cut to keep its end', () => {
    const value = secrets.find((secret) => secret.name === 'AGENT_DEPLOY_TOKEN')!.value;
    expect(redactSecrets(`${value.slice(5)}\nthe rest`, secrets)).to.equal('[redacted AGENT_DEPLOY_TOKEN]\nthe rest');
    expect(redactSecrets(`${value.slice(-4)} and more`, secrets)).to.equal('[redacted AGENT_DEPLOY_TOKEN] and more');
    expect(redactSecrets(`${value.slice(-3)} and more`, secrets)).to.equal(`${value.slice(-3)} and more`);
    expect(redactSecrets(`more then ${value.slice(5)}`, secrets)).to.equal(`more then ${value.slice(5)}`);
  });

  it('also finds a value written inside a JSON string, with its quotes, backslashes and newlines escaped', () => {
    const value = 'a"b\\c\nd';
    expect(redactSecrets(JSON.stringify({ v: value }), [{ name: 'AGENT_J', value }])).to.equal('{"v":"[redacted AGENT_J]"}');
  });

  it('treats regular-expression characters in a value literally', () => {
    expect(redactSecrets('p=a.b*c$(x)', [{ name: 'AGENT_P', value: 'a.b*c$(x)' }])).to.equal('p=[redacted AGENT_P]');
    expect(redactSecrets('aXbbc', [{ name: 'AGENT_P', value: 'a.b*c' }])).to.equal('aXbbc');
  });

  it('also finds a padded value trimmed, and each line of a multi-line value (as an unquoted echo prints it)', () => {
    expect(redactSecrets('v=s3cr3t!', [{ name: 'AGENT_PAD', value: '  s3cr3t!\n' }])).to.equal('v=[redacted AGENT_PAD]');
    const pem = '-----BEGIN KEY-----\nMIIEvQIBADANBgkq\nhkiG9w0BAQEFAASC\n-----END KEY-----';
    const echoed = pem.replace(/\n/g, ' ');
    expect(redactSecrets(echoed, [{ name: 'AGENT_KEY', value: pem }])).to.equal(
      '[redacted AGENT_KEY] [redacted AGENT_KEY] [redacted AGENT_KEY] [redacted AGENT_KEY]',
    );
  });

  describe('a value with a context (secret only where that text surrounds it)', () => {
    const url = [{ name: 'DB password', value: 'postgres', context: { before: ':', after: '@' } }];
    const assigned = [{ name: 'PGPASSWORD', value: 'pw', context: { before: 'password=', after: '' } }];

    it('redacts the value where its whole context surrounds it, whatever its length, and keeps the context', () => {
      expect(redactSecrets('postgres://postgres:postgres@db postgres:16', url)).to.equal('postgres://postgres:[redacted DB password]@db postgres:16');
      expect(redactSecrets('a password=pw b', assigned)).to.equal('a password=[redacted PGPASSWORD] b');
    });

    it('never takes a piece of the context and value, at either end of the text, for a cut-off value', () => {
      expect(redactSecrets('All tests pass', [{ name: 'X', value: 'postgres', context: { before: 'password=', after: '' } }])).to.equal('All tests pass');
      expect(redactSecrets('the bypass', [{ name: 'X', value: 'postgres', context: { before: 'password=', after: '' } }])).to.equal('the bypass');
      expect(redactSecrets('handled the POST', [{ name: 'X', value: 'postgres', context: { before: 'POSTGRES_PASSWORD=', after: '' } }])).to.equal(
        'handled the POST',
      );
      expect(redactSecrets('gres@ then', [{ name: 'X', value: 'postgres', context: { before: ':', after: '@' } }])).to.equal('[redacted X]@ then');
      expect(redactSecrets('gres then', url)).to.equal('gres then');
      expect(redactSecrets('ends in post', url)).to.equal('ends in post');
      expect(redactSecrets('ends in :post', url)).to.equal('ends in :[redacted DB password]');
      expect(redactSecrets('ends in :pos', url)).to.equal('ends in :pos');
    });

    it('finds the value written inside a JSON string in its context too', () => {
      const quoted = [{ name: 'Q', value: 'a"b', context: { before: 'Q=', after: ';' } }];
      expect(redactSecrets(JSON.stringify('Q=a"b;'), quoted)).to.equal('"Q=[redacted Q];"');
    });
  });

  describe('a value assigned to a name (secret only as that name’s value)', () => {
    const pg = [{ name: 'PGPASSWORD', value: 'pw', context: { assignedTo: 'PGPASSWORD' } }];

    it('redacts the value, and only it, after the name bare or quoted, =, : or => with spaces or tabs, and an optional quote', () => {
      for (const [text, redacted] of [
        ['PGPASSWORD=pw', 'PGPASSWORD=[redacted PGPASSWORD]'],
        ['export PGPASSWORD="pw"', 'export PGPASSWORD="[redacted PGPASSWORD]"'],
        ["{'PGPASSWORD': 'pw'}", "{'PGPASSWORD': '[redacted PGPASSWORD]'}"],
        ['{"PGPASSWORD"=>"pw"}', '{"PGPASSWORD"=>"[redacted PGPASSWORD]"}'],
        ['PGPASSWORD = pw', 'PGPASSWORD = [redacted PGPASSWORD]'],
        ['PGPASSWORD\t:\tpw', 'PGPASSWORD\t:\t[redacted PGPASSWORD]'],
        ['"pgpassword":"pw"', '"pgpassword":"[redacted PGPASSWORD]"'],
      ]) {
        expect(redactSecrets(text, pg), text).to.equal(redacted);
      }
    });

    it('leaves the value alone elsewhere, and the name without a value', () => {
      for (const text of ['pw', 'a pw b', 'PGPASSWORD is pw', 'PGPASSWORD', 'PGPASSWORD:', 'PGPASSWORD\npw', '\'PGPASSWORD": "pw']) {
        expect(redactSecrets(text, pg), text).to.equal(text);
      }
    });

    it('redacts a value cut off after its whole assignment from its first character, and a quoted one cut at its beginning from 4', () => {
      const long = [{ name: 'P', value: 's3cr3t', context: { assignedTo: 'P' } }];
      expect(redactSecrets('log P=s', long)).to.equal('log P=[redacted P]');
      expect(redactSecrets("log 'P': 's3c", long)).to.equal("log 'P': '[redacted P]");
      expect(redactSecrets('log P=x', long)).to.equal('log P=x');
      expect(redactSecrets('log s', long)).to.equal('log s');
      expect(redactSecrets('cr3t" and', long)).to.equal('[redacted P]" and');
      expect(redactSecrets('cr3t and', long)).to.equal('cr3t and');
      expect(redactSecrets('r3t" and', long)).to.equal('r3t" and');
    });

    it('reads the name and the value literally, and names the marker after the name whose assignment begins first', () => {
      expect(redactSecrets('a.b=x.y a_b=x.y aXb=x.y', [{ name: 'N', value: 'x.y', context: { assignedTo: 'a.b' } }])).to.equal(
        'a.b=[redacted N] a_b=x.y aXb=x.y',
      );
      const both = [
        { name: 'URL password', value: 'pw', context: { assignedTo: 'password' } },
        { name: 'PGPASSWORD', value: 'pw', context: { assignedTo: 'PGPASSWORD' } },
      ];
      expect(redactSecrets('PGPASSWORD = pw; password: pw', both)).to.equal('PGPASSWORD = [redacted PGPASSWORD]; password: [redacted URL password]');
    });
  });
});

describe('redactSecretsDeep', () => {
  it('redacts every string of a tool result before it is serialized, keys included, and keeps other values', () => {
    const secrets = [{ name: 'AGENT_Q', value: 'say "hi"\\now' }];
    const result = { exitCode: 0, ok: true, output: 'got say "hi"\\now', files: ['a', 'say "hi"\\now.txt'], nested: { 'say "hi"\\now': null } };
    const redacted = redactSecretsDeep(result, secrets);
    expect(redacted).to.deep.equal({
      exitCode: 0,
      ok: true,
      output: 'got [redacted AGENT_Q]',
      files: ['a', '[redacted AGENT_Q].txt'],
      nested: { '[redacted AGENT_Q]': null },
    });
    expect(JSON.stringify(redacted)).not.to.contain('hi');
  });
});
