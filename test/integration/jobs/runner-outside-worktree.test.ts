import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { CommandAgent } from '../../../src/adapters/jobs/command-agent.js';
import { LocalJobRunner } from '../../../src/adapters/jobs/local-job-runner.js';
import { EnvironmentSecretStore } from '../../../src/adapters/secrets/environment-secret-store.js';
import { ChildProcessShellExecutor } from '../../../src/adapters/shell/child-process-shell-executor.js';
import { AI_PROVIDERS } from '../../../src/adapters/ai/ai-providers.js';
import type { JobChange } from '../../../src/domain/jobs/job.js';
import { tempDir } from '../../support/gateway-process.js';
import { contractJob } from '../../contract/job-runner.contract.js';

/**
 * The runner's own git and file operations run outside the agent's sandbox (JOB_SANDBOX=bwrap binds
 * the jobs repository and the worktree writable): what the agent leaves in the worktree and the
 * repository must not have them commit, write or read anything outside the worktree (sandbox
 * review H1, M1). The agent here is a JOB_AGENT_COMMAND script doing what one inside could.
 */

const git = (dir: string, ...args: string[]): string => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });

describe('the local runner and what the agent leaves in its worktree', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  let root: string;
  /** A directory of the host's outside the worktree, standing for the service's HOME: it holds a key. */
  let home: string;
  beforeEach(async () => {
    root = await tempDir('runner-outside');
    dirs.push(root);
    home = `${root}/home`;
    await mkdir(`${home}/.ssh`, { recursive: true });
    await writeFile(`${home}/.ssh/id_rsa`, 'PLANTED PRIVATE KEY\n');
  });
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  const run = async (command: string, prompt = 'Work') => {
    const agent = new CommandAgent(command, 10_000, new ChildProcessShellExecutor(), new EnvironmentSecretStore({}, AI_PROVIDERS));
    const runner = new LocalJobRunner({ repoDir: `${root}/repo`, worktreesDir: `${root}/worktrees` }, agent, new ChildProcessShellExecutor());
    const job = contractJob(prompt);
    const reports: JobChange[] = [];
    const outcome = await runner
      .run(job, async (change) => void reports.push(change), new AbortController().signal)
      .then(
        () => null,
        (error: Error) => error,
      );
    return { job, reports, error: outcome };
  };
  const files = (branch: string): string[] => git(`${root}/repo`, 'ls-tree', '-r', '--name-only', branch).trim().split('\n').sort();
  const jobFiles = (id: string): string[] => ['README.md', `logs/${id}/agent.log`, `logs/${id}/job.md`, 'work.txt'];

  it('commits the worktree, not the directory a core.worktree of the agent’s config.worktree names', async () => {
    const { job, reports, error } = await run(
      `echo work > work.txt && git config extensions.worktreeConfig true && git config --worktree core.worktree '${home}'`,
    );
    expect(error).to.equal(null);
    expect(reports.at(-1)).to.include({ status: 'succeeded' });
    expect(files(job.branch)).to.deep.equal(jobFiles(job.id));
    expect(git(`${root}/repo`, 'show', `${job.branch}:work.txt`)).to.equal('work\n');
  });

  it('commits the worktree, not the directory a .git file the agent rewrote leads to', async () => {
    // A copy of the worktree's git directory whose config.worktree names HOME, and `.git` pointing to it.
    const craft = `${root}/craft`;
    const { job, reports, error } = await run(
      [
        'echo work > work.txt',
        `cp -r "$(git rev-parse --absolute-git-dir)" '${craft}'`,
        `(cd "$(git rev-parse --git-common-dir)" && pwd) > '${craft}/commondir'`,
        'git config extensions.worktreeConfig true',
        `printf '[core]\\n\\tworktree = %s\\n' '${home}' > '${craft}/config.worktree'`,
        `printf 'gitdir: %s\\n' '${craft}' > .git`,
      ].join(' && '),
    );
    expect(error).to.equal(null);
    expect(reports.at(-1)).to.include({ status: 'succeeded' });
    expect(files(job.branch)).to.deep.equal(jobFiles(job.id));
  });

  it('refuses to commit when the agent rewrote its worktree’s commondir, naming it, and commits nothing elsewhere', async () => {
    const other = `${root}/other.git`;
    const { job, error } = await run(
      [
        'echo work > work.txt',
        `cp -r "$(git rev-parse --git-common-dir)" '${other}'`,
        `printf '%s\\n' '${other}' > "$(git rev-parse --absolute-git-dir)/commondir"`,
        `git config -f '${other}/config' core.worktree '${home}'`,
      ].join(' && '),
    );
    expect(error?.message).to.match(/commondir/);
    // Neither repository got the job's commit (the branch is where `worktree add` made it: main's commit).
    expect(git(`${root}/repo`, 'rev-parse', job.branch)).to.equal(git(`${root}/repo`, 'rev-parse', 'main'));
    expect(git(other, 'rev-parse', job.branch)).to.equal(git(`${root}/repo`, 'rev-parse', 'main'));
  });

  it('writes agent.log into, and reads summary.md from, the worktree when the agent made logs/<id> a link out', async () => {
    const outside = `${root}/outside`;
    await mkdir(outside);
    await writeFile(`${outside}/summary.md`, 'HOST SECRET SUMMARY');
    await writeFile(`${outside}/agent.log`, 'a file of the host');
    const { job, reports, error } = await run(`echo work > work.txt && rm -rf "logs/$JOB_ID" && ln -s '${outside}' "logs/$JOB_ID" && echo done`);
    expect(error).to.equal(null);
    expect(reports.at(-1)).to.include({ status: 'succeeded', summary: 'done' });
    expect((await readdir(outside)).sort()).to.deep.equal(['agent.log', 'summary.md']);
    expect(await readFile(`${outside}/agent.log`, 'utf8')).to.equal('a file of the host');
    // job.md went with the directory the agent removed.
    expect(files(job.branch)).to.deep.equal(['README.md', `logs/${job.id}/agent.log`, 'work.txt']);
    expect(git(`${root}/repo`, 'show', `${job.branch}:logs/${job.id}/agent.log`)).to.equal('done\n');
  });

  it('writes job.md into the worktree when main holds a logs link out', async () => {
    const outside = `${root}/outside`;
    await mkdir(outside);
    // The repository as the first job makes it, then a `logs` link committed to main.
    await run('echo first');
    execFileSync('ln', ['-s', outside, `${root}/repo/logs`]);
    git(`${root}/repo`, 'add', 'logs');
    git(`${root}/repo`, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'logs link');
    const { job, reports, error } = await run('echo work > work.txt && echo done');
    expect(error).to.equal(null);
    expect(reports.at(-1)).to.include({ status: 'succeeded' });
    expect(await readdir(outside)).to.deep.equal([]);
    expect(git(`${root}/repo`, 'show', `${job.branch}:logs/${job.id}/job.md`)).to.contain('Work');
    expect(files(job.branch)).to.include.members(jobFiles(job.id));
  });

  it('commits a summary holding a NUL, without it', async () => {
    const { job, reports, error } = await run(`echo work > work.txt && printf 'done\\0 and more' > "logs/$JOB_ID/summary.md"`);
    expect(error).to.equal(null);
    expect(reports.at(-1)).to.include({ status: 'succeeded', summary: 'done and more' });
    expect(git(`${root}/repo`, 'log', '-1', '--format=%B', job.branch)).to.contain('done and more');
  });
});
