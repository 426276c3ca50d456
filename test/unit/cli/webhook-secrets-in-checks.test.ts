import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliIo } from '../../../src/cli/cli-io.js';
import type { ParsedCommand } from '../../../src/cli/command-line.js';
import { checkCrons } from '../../../src/cli/crons-command.js';
import { checkTriggers } from '../../../src/cli/triggers-command.js';
import { type CliFilesDir, cliFilesDir, runCommand } from '../../support/cli-checks.js';

/*
 * `triggers check` and `crons check` list what a file holds and say what is wrong with it: a
 * webhook action's URL (its path and query often are its credential) and its header values
 * never reach the terminal, in the list or in a problem line.
 */

const SECRETS = ['SLACKPATHSECRET', 'QUERYSECRET', 'HEADERSECRET', 'PASSWORDSECRET', 'BADHEADERSECRET'];

const webhooks = [
  { type: 'webhook', url: 'https://hooks.slack.com/services/T0/B0/SLACKPATHSECRET' },
  { type: 'webhook', url: 'https://hooks.example.com/x?token=QUERYSECRET', headers: { Authorization: 'Bearer HEADERSECRET' } },
];
/** Each refused: a URL with a password, a header value with a line break, a URL that is not http(s). */
const refused = [
  { type: 'webhook', url: 'https://user:PASSWORDSECRET@hooks.example.com/' },
  { type: 'webhook', url: 'https://hooks.example.com/', headers: { Authorization: 'Bearer BADHEADERSECRET\nX: y' } },
  { type: 'webhook', url: 'ftp://hooks.example.com/QUERYSECRET' },
];

const run = async (command: (parsed: ParsedCommand, io: CliIo) => Promise<number>, file: string) => {
  const { code, out, err } = await runCommand(command, { file });
  return { code, text: `${out}${err}` };
};

describe('triggers check and crons check: webhook secrets never printed', () => {
  let dir: string;
  let files: CliFilesDir;
  beforeEach(async () => {
    files = await cliFilesDir('agw-cli-webhook-secrets-', { 'TRIGGERS.json': '[]', 'CRONS.json': '[]' });
    dir = files.dir;
  });
  afterEach(() => files.restore());

  const cases = [
    ['triggers check', checkTriggers, 'TRIGGERS.json', (actions: unknown[]) => [{ name: 'notify', watch_path: '/webhook', enabled: true, actions }]],
    ['crons check', checkCrons, 'CRONS.json', (actions: unknown[]) => [{ name: 'nightly', schedule: '0 3 * * *', enabled: true, actions }]],
  ] as const;
  for (const [name, command, fileName, entries] of cases) {
    it(`${name}: lists a valid file's webhook actions without their URLs' secrets or header values`, async () => {
      const file = join(dir, fileName);
      await writeFile(file, JSON.stringify(entries(webhooks)));
      const { code, text } = await run(command, file);
      expect(code, text).to.equal(0);
      for (const secret of SECRETS) expect(text).to.not.contain(secret);
    });

    it(`${name}: names the refused field of a webhook action without its value`, async () => {
      const file = join(dir, fileName);
      await writeFile(file, JSON.stringify(entries(refused)));
      const { code, text } = await run(command, file);
      expect(code).to.equal(1);
      expect(text).to.contain('actions[0].url').and.to.contain('actions[1].headers.Authorization').and.to.contain('actions[2].url');
      for (const secret of SECRETS) expect(text).to.not.contain(secret);
    });
  }
});
