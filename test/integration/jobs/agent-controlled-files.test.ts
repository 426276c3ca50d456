import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CommandAgent } from '../../../src/adapters/jobs/command-agent.js';
import { LocalJobRunner } from '../../../src/adapters/jobs/local-job-runner.js';
import { LoopAgent } from '../../../src/adapters/jobs/loop-agent.js';
import { EnvironmentSecretStore } from '../../../src/adapters/secrets/environment-secret-store.js';
import { ChildProcessShellExecutor } from '../../../src/adapters/shell/child-process-shell-executor.js';
import type { JobChange } from '../../../src/domain/jobs/job.js';
import { AI_PROVIDERS } from '../../../src/adapters/ai/ai-providers.js';
import { ScriptedAiClient } from '../../fakes/scripted-ai-client.js';
import { tempDir } from '../../support/gateway-process.js';
import { contractJob } from '../../contract/job-runner.contract.js';
import { within } from '../../support/time-limit.js';

/**
 * Files of the job's worktree are the agent's: a FIFO it made there must not stall the service
 * (each open() of one blocks a thread of libuv's threadpool of 4, which file reads and DNS lookups
 * share), nor a huge file be read whole (review M1).
 */

/** A running job of the API (contractJob: unique ids across the test run). */
const job = contractJob;

const FIFOS = ['f1', 'f2', 'f3', 'f4', 'f5'];

describe('files the agent controls', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  const fifos: string[] = [];
  const dir = async (): Promise<string> => {
    const made = await tempDir('agent-files');
    dirs.push(made);
    return made;
  };
  const mkfifo = (worktree: string, names: readonly string[]): void => {
    execFileSync('mkfifo', names, { cwd: worktree });
    fifos.push(...names.map((name) => join(worktree, name)));
  };
  afterEach(async () => {
    // An open() blocked on a FIFO (without the fix) returns once the other end is opened.
    for (const fifo of fifos.splice(0)) {
      for (const flags of [constants.O_WRONLY, constants.O_RDONLY]) {
        try {
          closeSync(openSync(fifo, flags | constants.O_NONBLOCK));
        } catch {
          // no one waiting at that end, or gone
        }
      }
    }
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  /** File reads and DNS lookups of this process still complete: no threadpool thread is held. */
  const threadpoolUsable = async (worktree: string): Promise<void> => {
    await writeFile(join(worktree, 'plain.txt'), 'plain');
    expect(await within(5_000, 'a file read', readFile(join(worktree, 'plain.txt'), 'utf8'))).to.equal('plain');
    expect(await within(5_000, 'a DNS lookup', lookup('localhost'))).to.have.property('address');
  };

  const loop = (ai: ScriptedAiClient) => new LoopAgent(ai, new ChildProcessShellExecutor(), new EnvironmentSecretStore({}, AI_PROVIDERS), 20, 30_000);

  it('read_file refuses a FIFO at once, naming it, and leaves the threadpool free (5 FIFOs, more than its 4 threads)', async () => {
    const worktree = await dir();
    mkfifo(worktree, FIFOS);
    const ai = new ScriptedAiClient([{ text: '', calls: FIFOS.map((path) => ({ name: 'read_file', input: { path } })) }, { text: 'Done.' }]);
    const outcome = await within(10_000, 'the agent', loop(ai).run(job('Read the pipes'), worktree, new AbortController().signal));
    expect(outcome.ok).to.equal(true);
    expect(ai.toolResults).to.deep.equal(FIFOS.map((path) => ({ error: `${path} is a FIFO (named pipe), not a regular file: it is not read or written` })));
    await threadpoolUsable(worktree);
  });

  it('write_file refuses a FIFO at once, naming it, and leaves the threadpool free', async () => {
    const worktree = await dir();
    mkfifo(worktree, FIFOS);
    const ai = new ScriptedAiClient([{ text: '', calls: FIFOS.map((path) => ({ name: 'write_file', input: { path, content: 'x' } })) }, { text: 'Done.' }]);
    const outcome = await within(10_000, 'the agent', loop(ai).run(job('Write the pipes'), worktree, new AbortController().signal));
    expect(outcome.ok).to.equal(true);
    expect(ai.toolResults).to.deep.equal(FIFOS.map((path) => ({ error: `${path} is a FIFO (named pipe), not a regular file: it is not read or written` })));
    await threadpoolUsable(worktree);
  });

  it('read_file and write_file refuse a directory, naming it', async () => {
    const worktree = await dir();
    execFileSync('mkdir', ['sub'], { cwd: worktree });
    const ai = new ScriptedAiClient([
      {
        text: '',
        calls: [
          { name: 'read_file', input: { path: 'sub' } },
          { name: 'write_file', input: { path: 'sub', content: 'x' } },
        ],
      },
      { text: 'Done.' },
    ]);
    await loop(ai).run(job('Read a directory'), worktree, new AbortController().signal);
    expect(ai.toolResults).to.deep.equal([
      { error: 'sub is a directory, not a regular file: it is not read or written' },
      { error: 'sub is a directory, not a regular file: it is not read or written' },
    ]);
  });

  it('read_file of a huge (sparse, 1 GiB) file reads its first 100 KiB, not the whole file', async () => {
    const worktree = await dir();
    execFileSync('truncate', ['-s', '1G', 'big.bin'], { cwd: worktree });
    await writeFile(join(worktree, 'start.txt'), `${'é'.repeat(60 * 1024)}`);
    const ai = new ScriptedAiClient([
      {
        text: '',
        calls: [
          { name: 'read_file', input: { path: 'big.bin' } },
          { name: 'read_file', input: { path: 'start.txt' } },
        ],
      },
      { text: 'Done.' },
    ]);
    await within(20_000, 'the agent', loop(ai).run(job('Read the big file'), worktree, new AbortController().signal));
    expect(ai.toolResults[0]).to.equal('\0'.repeat(100 * 1024));
    // 100 KiB of a two-byte character: 51 200 of them, none cut in half.
    expect(ai.toolResults[1]).to.equal('é'.repeat(50 * 1024));
  });

  it('still reads a file through a link inside the repository', async () => {
    const worktree = await dir();
    await writeFile(join(worktree, 'real.txt'), 'real');
    execFileSync('ln', ['-s', 'real.txt', 'alias.txt'], { cwd: worktree });
    const ai = new ScriptedAiClient([{ text: '', calls: [{ name: 'read_file', input: { path: 'alias.txt' } }] }, { text: 'Done.' }]);
    await loop(ai).run(job('Read through a link'), worktree, new AbortController().signal);
    expect(ai.toolResults).to.deep.equal(['real']);
  });

  it('a FIFO as logs/<id>/summary.md is not read: the job finishes, its summary the last line of its log', async () => {
    const root = await dir();
    const agent = new CommandAgent(
      'mkfifo "logs/$JOB_ID/summary.md"; echo "made a pipe"',
      10_000,
      new ChildProcessShellExecutor(),
      new EnvironmentSecretStore({}, AI_PROVIDERS),
    );
    const runner = new LocalJobRunner({ repoDir: `${root}/repo`, worktreesDir: `${root}/worktrees` }, agent, new ChildProcessShellExecutor());
    const theJob = job('Make a pipe');
    fifos.push(join(root, 'worktrees', theJob.id, 'logs', theJob.id, 'summary.md'));
    const reports: JobChange[] = [];
    await within(
      30_000,
      'the job',
      runner.run(theJob, async (change) => void reports.push(change), new AbortController().signal),
    );
    expect(reports.at(-1)).to.include({ status: 'succeeded', summary: 'made a pipe' });
    await threadpoolUsable(root);
  });
});
