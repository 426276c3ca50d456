import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { CommandAgent } from '../../../src/adapters/jobs/command-agent.js';
import { LocalJobRunner } from '../../../src/adapters/jobs/local-job-runner.js';
import { LoopAgent } from '../../../src/adapters/jobs/loop-agent.js';
import { EnvironmentSecretStore } from '../../../src/adapters/secrets/environment-secret-store.js';
import { ChildProcessShellExecutor } from '../../../src/adapters/shell/child-process-shell-executor.js';
import type { JobChange } from '../../../src/domain/jobs/job.js';
import { ScriptedAiClient } from '../../fakes/scripted-ai-client.js';
import { tempDir } from '../../support/gateway-process.js';
import { AI_PROVIDERS } from '../../../src/adapters/ai/ai-providers.js';
import { contractJob } from '../../contract/job-runner.contract.js';

/**
 * The secrets split of agent jobs (docs/jobs.md): AGENT_* reach the job's processes but never
 * the model; AGENT_LLM_* reach both; the service's own variables reach neither.
 */
const HIDDEN = 'hidden-deploy-7c1e "quoted"';
const OFFERED = 'offered-search-3b9d';
const PROVIDER = 'sk-provider-5a5a';
const SERVICE = 'service-only-db-url';

const secrets = () =>
  new EnvironmentSecretStore(
    { AGENT_DEPLOY_TOKEN: HIDDEN, AGENT_LLM_SEARCH_KEY: OFFERED, AGENT_PIN: '42', OPENAI_API_KEY: PROVIDER, DATABASE_URL: SERVICE },
    AI_PROVIDERS,
  );

/** A running job of the API (contractJob: unique ids across the test run). */
const job = contractJob;

const git = (dir: string, ...args: string[]): string => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });

describe('agent job secrets', function () {
  this.timeout(30_000);
  const dirs: string[] = [];
  const dir = async (): Promise<string> => {
    const made = await tempDir('agent-secrets');
    dirs.push(made);
    return made;
  };
  beforeEach(() => {
    process.env.DATABASE_URL_PROBE = SERVICE;
  });
  afterEach(async () => {
    delete process.env.DATABASE_URL_PROBE;
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  describe('LoopAgent (built-in agent)', () => {
    it('runs commands with AGENT_* and AGENT_LLM_*, and the model never reads an AGENT_ value or a provider secret', async () => {
      const worktree = await dir();
      await writeFile(`${worktree}/deploy.conf`, `token = ${HIDDEN}\nsearch = ${OFFERED}\n`);
      const ai = new ScriptedAiClient([
        {
          text: '',
          calls: [
            { name: 'run_command', input: { command: 'env' } },
            { name: 'run_command', input: { command: 'echo "$AGENT_DEPLOY_TOKEN|$AGENT_LLM_SEARCH_KEY|$AGENT_PIN"' } },
            { name: 'run_command', input: { command: 'echo $AGENT_DEPLOY_TOKEN >&2; exit 3' } },
            {
              name: 'run_command',
              input: { command: 'printf "%s|%s|%s" "$AGENT_DEPLOY_TOKEN" "$AGENT_LLM_SEARCH_KEY" "${DATABASE_URL_PROBE:-absent}" > seen.txt' },
            },
            { name: 'read_file', input: { path: 'deploy.conf' } },
            { name: 'run_command', input: { command: 'touch "x-$AGENT_DEPLOY_TOKEN"' } },
            { name: 'list_files', input: { path: '.' } },
            { name: 'read_file', input: { path: `missing-${HIDDEN}` } },
          ],
        },
        { text: 'Done.' },
      ]);
      const outcome = await new LoopAgent(ai, new ChildProcessShellExecutor(), secrets(), 10, 20_000).run(
        job(`Deploy it (the token ${HIDDEN} is in deploy.conf)`),
        worktree,
        new AbortController().signal,
      );

      // The commands had both variables, and nothing of the service.
      expect(await readFile(`${worktree}/seen.txt`, 'utf8')).to.equal(`${HIDDEN}|${OFFERED}|absent`);
      // What the model read: every tool result, the system prompt and the messages (the prompt included).
      expect(ai.requests[0].messages[0].text).to.equal('Deploy it (the token [redacted AGENT_DEPLOY_TOKEN] is in deploy.conf)');
      const read = JSON.stringify({ results: ai.toolResults, requests: ai.requests.map(({ system, messages }) => ({ system, messages })) });
      expect(read).not.to.contain('hidden-deploy-7c1e');
      expect(read).not.to.contain(PROVIDER);
      expect(read).not.to.contain(SERVICE);
      expect(ai.toolResults[0])
        .to.have.property('output')
        .that.contains('AGENT_DEPLOY_TOKEN=[redacted AGENT_DEPLOY_TOKEN]')
        .and.contains(`AGENT_LLM_SEARCH_KEY=${OFFERED}`);
      expect(ai.toolResults[1]).to.deep.include({ output: `[redacted AGENT_DEPLOY_TOKEN]|${OFFERED}|42\n` });
      expect(ai.toolResults[2]).to.deep.include({ exitCode: 3 });
      expect(ai.toolResults[2]).to.deep.include({ output: '[redacted AGENT_DEPLOY_TOKEN]\n' });
      expect(ai.toolResults[4]).to.equal(`token = [redacted AGENT_DEPLOY_TOKEN]\nsearch = ${OFFERED}\n`);
      expect(ai.toolResults[6]).to.include('x-[redacted AGENT_DEPLOY_TOKEN]');
      expect(ai.toolResults[7]).to.have.property('error').that.contains('[redacted AGENT_DEPLOY_TOKEN]');
      // Told the names of the offered variables only.
      expect(ai.requests[0].system).to.contain('AGENT_LLM_SEARCH_KEY').and.not.to.contain('AGENT_DEPLOY_TOKEN').and.not.to.contain('AGENT_PIN');
      expect(ai.requests[0].system).not.to.contain(OFFERED);
      // The log (stored on the job and committed) is redacted too.
      expect(outcome.ok).to.equal(true);
      expect(outcome.log).to.contain('[redacted AGENT_DEPLOY_TOKEN]').and.not.to.contain('7c1e');
    });

    it('names no variables in the system prompt when no AGENT_LLM_* is set', async () => {
      const ai = new ScriptedAiClient([{ text: 'Nothing to do.' }]);
      await new LoopAgent(ai, new ChildProcessShellExecutor(), new EnvironmentSecretStore({ AGENT_DEPLOY_TOKEN: HIDDEN }, AI_PROVIDERS), 10, 20_000).run(
        job('x'),
        await dir(),
        new AbortController().signal,
      );
      expect(ai.requests[0].system).not.to.contain('AGENT_');
    });
  });

  describe('CommandAgent (JOB_AGENT_COMMAND) through the local runner', () => {
    it('gives the command AGENT_* and AGENT_LLM_* and no service variable, and redacts AGENT_ values from the log, the summary and the commit', async () => {
      const root = await dir();
      const command = [
        'env > env.txt',
        'echo "token is $AGENT_DEPLOY_TOKEN, search is $AGENT_LLM_SEARCH_KEY, provider is $OPENAI_API_KEY"',
        'printf "deployed with %s" "$AGENT_DEPLOY_TOKEN" > "logs/$JOB_ID/summary.md"',
      ].join('; ');
      const agent = new CommandAgent(command, 10_000, new ChildProcessShellExecutor(), secrets());
      const runner = new LocalJobRunner({ repoDir: `${root}/repo`, worktreesDir: `${root}/worktrees` }, agent, new ChildProcessShellExecutor());
      const reports: JobChange[] = [];
      const theJob = job('Deploy');
      await runner.run(theJob, async (change) => void reports.push(change), new AbortController().signal);

      const env = git(`${root}/repo`, 'show', `${theJob.branch}:env.txt`);
      expect(env).to.contain(`AGENT_DEPLOY_TOKEN=${HIDDEN}\n`).and.to.contain(`AGENT_LLM_SEARCH_KEY=${OFFERED}\n`).and.to.contain('AGENT_PIN=42\n');
      expect(env).to.contain(`OPENAI_API_KEY=${PROVIDER}\n`);
      expect(env).not.to.contain(SERVICE);

      const report = reports.at(-1)!;
      expect(report.status).to.equal('succeeded');
      expect(report.log).to.equal(`token is [redacted AGENT_DEPLOY_TOKEN], search is ${OFFERED}, provider is [redacted OPENAI_API_KEY]\n`);
      expect(report.summary).to.equal('deployed with [redacted AGENT_DEPLOY_TOKEN]');
      const agentLog = git(`${root}/repo`, 'show', `${theJob.branch}:logs/${theJob.id}/agent.log`);
      expect(agentLog).to.equal(report.log);
      expect(git(`${root}/repo`, 'log', '-1', '--format=%B', theJob.branch))
        .to.contain('[redacted AGENT_DEPLOY_TOKEN]')
        .and.not.to.contain('7c1e');
    });

    it("keeps the job's text and its summary off git's command line: the commit message goes by standard input", async () => {
      const root = await dir();
      // git, found through PATH by the runner, wrapped by a script that records each command line.
      const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
      const shim = `${root}/bin`;
      await mkdir(shim);
      await writeFile(`${shim}/git`, `#!/bin/sh\nprintf '%s ' "$@" >> '${root}/argv.txt'\necho >> '${root}/argv.txt'\nexec '${realGit}' "$@"\n`);
      await chmod(`${shim}/git`, 0o755);
      const path = process.env.PATH;
      process.env.PATH = `${shim}:${path}`;
      try {
        const agent = new CommandAgent(
          'echo "summary-marker-41f0 of the work" > "logs/$JOB_ID/summary.md"',
          10_000,
          new ChildProcessShellExecutor(),
          secrets(),
        );
        const runner = new LocalJobRunner({ repoDir: `${root}/repo`, worktreesDir: `${root}/worktrees` }, agent, new ChildProcessShellExecutor());
        const theJob = job('Prompt-marker-9d2c: deploy the thing');
        const reports: JobChange[] = [];
        await runner.run(theJob, async (change) => void reports.push(change), new AbortController().signal);
        expect(reports.at(-1)).to.include({ status: 'succeeded' });
        expect(git(`${root}/repo`, 'log', '-1', '--format=%B', theJob.branch)).to.equal(
          `job ${theJob.id}: Prompt-marker-9d2c: deploy the thing\n\nsummary-marker-41f0 of the work\n\n`,
        );
        const argv = await readFile(`${root}/argv.txt`, 'utf8');
        expect(argv).to.contain(' commit ');
        expect(argv).not.to.contain('marker');
      } finally {
        process.env.PATH = path;
      }
    });

    it("redacts a secret from an error of the runner's own (a git setting named by the agent)", async () => {
      const root = await dir();
      const agent = new CommandAgent('git config "hook.$AGENT_DEPLOY_TOKEN.command" true', 10_000, new ChildProcessShellExecutor(), secrets());
      const runner = new LocalJobRunner({ repoDir: `${root}/repo`, worktreesDir: `${root}/worktrees` }, agent, new ChildProcessShellExecutor());
      const failure = await runner
        .run(job('Hook'), async () => undefined, new AbortController().signal)
        .then(
          () => null,
          (error: Error) => error,
        );
      expect(failure?.message).to.contain('git config defines hooks (hook.[redacted AGENT_DEPLOY_TOKEN].command)');
      expect(failure?.message).not.to.contain('7c1e');
      expect(failure?.stack).not.to.contain('7c1e');
    });

    it('redacts a hidden value the log was cut through: a long log keeps its end, and may begin inside a value', async () => {
      // 27 characters of the value, then 65 520 of x: the 64 KiB kept begin 11 characters into the value.
      const command = `printf %s "$AGENT_DEPLOY_TOKEN"; head -c 65520 /dev/zero | tr '\\0' x`;
      const agent = new CommandAgent(command, 10_000, new ChildProcessShellExecutor(), secrets());
      const outcome = await agent.run(job('Long log'), await dir(), new AbortController().signal);
      expect(outcome.ok).to.equal(true);
      expect(outcome.log.slice(0, 40)).to.equal(`[redacted AGENT_DEPLOY_TOKEN]${'x'.repeat(11)}`);
      expect(outcome.log).not.to.contain('7c1e');
    });
  });
});
