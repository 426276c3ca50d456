import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkCrons } from '../../../src/cli/crons-command.js';
import { SETTINGS_NOTE } from '../../../src/cli/settings-note.js';
import { checkTriggers } from '../../../src/cli/triggers-command.js';
import { type CliFilesDir, cliFilesDir, runCommand } from '../../support/cli-checks.js';

/*
 * `triggers check` on a valid file whose triggers read headers no trigger ever sees (credentials
 * are dropped from every request snapshot): a warning a line on stderr naming the file, the
 * trigger, the field and the header, the file listed as valid and exit code 0.
 */

const check = (file: string) => runCommand(checkTriggers, { file });

describe('triggers check: triggers reading a credential header', () => {
  let dir: string;
  let file: string;
  let files: CliFilesDir;
  beforeEach(async () => {
    files = await cliFilesDir('agw-triggers-check-');
    dir = files.dir;
    file = join(dir, 'TRIGGERS.json');
  });
  afterEach(() => files.restore());

  it('warns of each, naming the file, the trigger, the field and the header, and exits 0', async () => {
    await writeFile(
      file,
      JSON.stringify([
        {
          name: 'github-push',
          watch_path: '/webhook',
          enabled: true,
          when: { 'headers.x-github-event': { equals: 'push' }, 'headers.x-hub-signature-256': { prefix: 'sha256=' } },
          actions: [{ type: 'command', command: 'echo {{ headers.Authorization }} {{headers.idempotency-key}}' }],
        },
        { name: 'plain', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'echo {{headers.x-github-event}}' }] },
      ]),
    );
    const { code, out, err } = await check(file);
    expect(code).to.equal(0);
    expect(out).to.match(/TRIGGERS\.json: 2 triggers valid \(2 enabled\)\n/);
    const why = (consequence: string) =>
      `which a trigger never sees: it is treated as a credential and never given to templates or "when", so ${consequence} (docs/triggers.md, "Template tokens")`;
    expect(err.trimEnd().split('\n')).to.deep.equal([
      `warning: ${file}: trigger #0 "github-push": when.headers.x-hub-signature-256: names the header x-hub-signature-256, ${why('this test never passes and the trigger never fires')}`,
      `warning: ${file}: trigger #0 "github-push": actions[0].command: {{ headers.Authorization }} names the header authorization, ${why('the token always renders as the empty string')}`,
    ]);
  });

  it('says nothing when the triggers read ordinary headers only', async () => {
    await writeFile(
      file,
      JSON.stringify([
        {
          name: 'github-push',
          watch_path: '/webhook',
          enabled: true,
          when: { 'headers.x-github-event': { equals: 'push' } },
          actions: [{ type: 'command', command: 'echo {{headers.idempotency-key}} {{headers}}' }],
        },
      ]),
    );
    expect(await check(file)).to.deep.include({ code: 0, err: '' });
  });

  it('refuses an enabled agent action where jobs are not configured, naming the trigger, the action and the settings that enable jobs, and exits 1', async () => {
    files.setEnv({ JOB_AGENT_COMMAND: undefined, LLM_PROVIDER: undefined, CODEHOST_TOKEN: undefined, CODEHOST_REPO: undefined });
    await writeFile(
      file,
      JSON.stringify([
        { name: 'fine', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
        { name: 'triage', watch_path: '/webhook', enabled: true, actions: [{ type: 'agent', job: 'Triage {{body.issue}}' }] },
      ]),
    );
    const { code, out, err } = await check(file);
    expect(code).to.equal(1);
    expect(out).to.equal('');
    expect(err).to.equal(
      `${file}: trigger #1 "triage": actions[0]: an agent action needs jobs, which this gateway does not run: set JOB_AGENT_COMMAND or LLM_PROVIDER, or CODEHOST_TOKEN and CODEHOST_REPO (see docs/jobs.md)\n1 problem found\n` +
        `${SETTINGS_NOTE}\n`,
    );
    process.env.JOB_AGENT_COMMAND = './agent.sh';
    expect((await check(file)).code).to.equal(0);
  });

  it("says under a problem of the settings (not of the file) that they are this command's, which a server started with JOB_AGENT_COMMAND=… npm start does not share; not under the file's own problems", async () => {
    // A newcomer following docs/first-hour.md starts the server with JOB_AGENT_COMMAND on its
    // command line, then checks in another terminal: the check refused the agent action saying
    // only "which this gateway does not run", while the gateway ran it.
    files.setEnv({ JOB_AGENT_COMMAND: undefined, LLM_PROVIDER: undefined, CODEHOST_TOKEN: undefined, CODEHOST_REPO: undefined });
    expect(SETTINGS_NOTE).to.equal(
      "note: an agent action's jobs and provider key are checked with this command's settings (its environment, then .env in this directory), which must be the server's: a setting given to the server alone (JOB_AGENT_COMMAND=… npm start) is not seen here (docs/cli.md)",
    );
    const agent = { type: 'agent', job: 'Review {{body.ref}}' };
    await writeFile(file, JSON.stringify([{ name: 'review', watch_path: '/webhook', enabled: true, actions: [agent] }]));
    expect((await check(file)).err.trimEnd().split('\n').at(-1)).to.equal(SETTINGS_NOTE);
    const crons = join(dir, 'CRONS.json');
    await writeFile(crons, JSON.stringify([{ name: 'nightly', schedule: '0 3 * * *', enabled: true, actions: [{ type: 'agent', job: 'Tidy up' }] }]));
    const { code: cronsCode, err: said } = await runCommand(checkCrons, { file: crons });
    expect(cronsCode).to.equal(1);
    expect(said, said).to.contain('schedule #0 "nightly": actions[0]: an agent action needs jobs');
    expect(said.trimEnd().split('\n').at(-1)).to.equal(SETTINGS_NOTE);
    // The file's own problem (a field misspelt) is not the settings': no note, also beside an agent action.
    await writeFile(file, JSON.stringify([{ name: 'review', watch_path: '/webhook', enabeld: true, actions: [agent] }]));
    const { code, err: fileProblems } = await check(file);
    expect(code).to.equal(1);
    expect(fileProblems).to.contain('enabeld: unknown field').and.not.to.contain('note:');
  });

  it('warns, without refusing, of a command whose script is missing in TRIGGERS_DIR or not executable, naming the trigger, the action and the fix', async () => {
    // Both passed unsaid; each run then failed with a bare "exit code 127" or "exit code 126".
    await writeFile(join(dir, 'noexec.sh'), '#!/bin/sh\necho hi\n', { mode: 0o644 });
    await writeFile(join(dir, 'ok.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
    await writeFile(
      file,
      JSON.stringify([
        { name: 'deploy', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: './deploy.sh {{body.ref}}' }] },
        {
          name: 'mixed',
          watch_path: '/webhook',
          enabled: true,
          actions: [
            { type: 'command', command: 'echo hi' },
            { type: 'command', command: '/bin/true' },
            { type: 'command', command: './ok.sh' },
            { type: 'command', command: 'STAGE=prod ./noexec.sh now' },
          ],
        },
        { name: 'later', watch_path: '/webhook', enabled: false, actions: [{ type: 'command', command: './later.sh' }] },
      ]),
    );
    const { code, out, err } = await check(file);
    expect(code).to.equal(0);
    expect(out).to.match(/TRIGGERS\.json: 3 triggers valid \(2 enabled\)\n/);
    expect(err.trimEnd().split('\n')).to.deep.equal([
      `warning: ${file}: trigger #0 "deploy": actions[0].command: ./deploy.sh does not exist in TRIGGERS_DIR (${join(dir, 'deploy.sh')}): the command fails (exit code 127, command not found) until it is deployed there`,
      `warning: ${file}: trigger #1 "mixed": actions[3].command: ./noexec.sh is not executable (mode 0644): the command would fail (exit code 126); chmod +x ${join(dir, 'noexec.sh')}`,
    ]);
  });

  it('refuses a trigger on the public /ping (anyone could fire it), naming the file, the trigger and the field, and exits 1', async () => {
    await writeFile(
      file,
      JSON.stringify([
        { name: 'fine', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
        { name: 'open', watch_path: '/ping', enabled: true, actions: [{ type: 'command', command: 'true' }] },
      ]),
    );
    const { code, out, err } = await check(file);
    expect(code).to.equal(1);
    expect(out).to.equal('');
    expect(err).to.contain(
      `${file}: trigger #1 "open": watch_path: /ping is public (no authentication): a trigger on it would run for anyone; watch an authenticated endpoint such as /webhook\n`,
    );
  });
});

describe('triggers check: a code-host trigger with an agent action and no when', () => {
  let files: CliFilesDir | undefined;
  afterEach(async () => {
    await files?.restore();
    files = undefined;
  });

  it('warns that every event of the repository starts a job, lists the file as valid and exits 0', async () => {
    // Jobs run (an agent command): an agent action is valid.
    files = await cliFilesDir('agw-triggers-check-codehost-', {}, { JOB_AGENT_COMMAND: 'true' });
    const file = join(files.dir, 'TRIGGERS.json');
    await writeFile(
      file,
      JSON.stringify([
        { name: 'every-event', watch_path: '/codehost/webhook', enabled: true, actions: [{ type: 'agent', job: 'Look at {{body.ref}}' }] },
        {
          name: 'issues',
          watch_path: '/codehost/webhook',
          enabled: true,
          when: { 'headers.x-github-event': { equals: 'issues' } },
          actions: [{ type: 'agent', job: 'Fix {{body.issue.title}}' }],
        },
      ]),
    );
    const { code, out, err } = await check(file);
    expect(code, err).to.equal(0);
    expect(out).to.include('2 triggers valid');
    const warnings = err.split('\n').filter((line) => line.includes('code-host endpoint'));
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.match(/^warning: trigger "every-event" watches the code-host endpoint \/codehost\/webhook with an agent action and no "when"/);
  });
});
