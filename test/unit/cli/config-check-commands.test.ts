import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliIo } from '../../../src/cli/cli-io.js';
import type { ParsedCommand } from '../../../src/cli/command-line.js';
import { checkCrons } from '../../../src/cli/crons-command.js';
import { reload } from '../../../src/cli/reload-command.js';
import { checkTriggers } from '../../../src/cli/triggers-command.js';
import { type CliFilesDir, cliFilesDir, runCommand } from '../../support/cli-checks.js';

/*
 * `triggers check`, `crons check` and `reload` print what a file holds — names, paths, field and
 * header names in problem lines. A hostile file (an OSC 52 clipboard write, a screen clear, a
 * line break that forges a row) must reach the terminal as escapes, one line per problem.
 */

/** An OSC 52 clipboard write, then a screen clear. */
const HOSTILE = 'ok\u001b]52;c;cHduZWQ=\u0007\u001b[2J';
/** What a terminal acts on: the C0 controls (line feed aside), DEL, C1, bidirectional controls. */
const ACTED_ON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const run = (command: (parsed: ParsedCommand, io: CliIo) => Promise<number>, file: string) => runCommand(command, { file });

describe('triggers check, crons check and reload: what the files hold reaches the terminal as escapes', () => {
  let dir: string;
  let files: CliFilesDir;
  beforeEach(async () => {
    files = await cliFilesDir('agw-cli-escapes-', { 'TRIGGERS.json': '[]', 'CRONS.json': '[]' });
    dir = files.dir;
  });
  afterEach(() => files.restore());

  const hostileTriggers = JSON.stringify([
    { name: HOSTILE, watch_path: `/nowhere${HOSTILE}`, enabled: true, actions: [{ type: 'command', command: 'true' }] },
    {
      name: 'hook',
      watch_path: '/nowhere',
      enabled: true,
      'extra\nFAKE ROW\t': 1,
      actions: [{ type: 'webhook', url: 'https://example.com/', headers: { [`X-${HOSTILE}\nforged: row`]: 'v' } }],
    },
  ]);

  it('triggers check: each problem on one line, every control character shown as its escape', async () => {
    const file = join(dir, 'TRIGGERS.json');
    await writeFile(file, hostileTriggers);
    const { code, out, err } = await run(checkTriggers, file);
    expect(code).to.equal(1);
    expect(out).to.equal('');
    expect(err).not.to.match(ACTED_ON);
    const lines = err.trimEnd().split('\n');
    expect(lines.at(-1)).to.match(/^\d+ problems found$/);
    for (const line of lines.slice(0, -1)) expect(line).to.match(/TRIGGERS\.json: trigger #[01]/);
    expect(err).to.include('trigger #0 "ok\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J": name: holds U+001B');
    expect(err).to.include('extra\\x0aFAKE ROW\\x09: unknown field');
  });

  it('crons check: a schedule named with control characters is never printed raw', async () => {
    const file = join(dir, 'CRONS.json');
    await writeFile(
      file,
      JSON.stringify([{ name: `${HOSTILE}\nFAKE\tROW`, schedule: '0 3 * * *', enabled: true, actions: [{ type: 'command', command: 'true' }] }]),
    );
    const { out, err } = await run(checkCrons, file);
    // Listed (a valid schedule) or refused (a name the validation refuses): escaped either way.
    expect(`${out}${err}`).not.to.match(ACTED_ON);
    expect(`${out}${err}`).to.include('ok\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J\\x0aFAKE\\x09ROW');
    for (const line of `${out}${err}`.trimEnd().split('\n')) expect(line).not.to.match(/^FAKE/);
  });

  it('reload: the files’ problems are printed one a line, as escapes', async () => {
    await writeFile(join(dir, 'TRIGGERS.json'), hostileTriggers);
    const { code, err } = await run(reload, '');
    expect(code).to.equal(1);
    expect(err).not.to.match(ACTED_ON);
    expect(err).to.include('"ok\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J": name: holds U+001B');
    expect(err).to.include('extra\\x0aFAKE ROW\\x09: unknown field');
  });
});
