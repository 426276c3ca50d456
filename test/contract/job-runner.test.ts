import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import nock from 'nock';
import { GithubActionsJobRunner, noRunError } from '../../src/adapters/codehost/github-actions-job-runner.js';
import { PollJobs } from '../../src/application/jobs/poll-jobs.js';
import { FixedClock } from '../fakes/fixed-clock.js';
import { InMemoryJobRepository } from '../fakes/in-memory-job-repository.js';
import { RecordingLogger } from '../fakes/recording-logger.js';
import { GithubClient } from '../../src/adapters/codehost/github-client.js';
import { VercelAiClient } from '../../src/adapters/ai/vercel-ai-client.js';
import { CommandAgent } from '../../src/adapters/jobs/command-agent.js';
import { LocalJobRunner } from '../../src/adapters/jobs/local-job-runner.js';
import { LoopAgent } from '../../src/adapters/jobs/loop-agent.js';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-open-ai.js';
import { FAKE_GITHUB_TOKEN, type FakeGithub, MAIN_SHA, startFakeGithub } from '../support/fake-github.js';
import { EnvironmentSecretStore } from '../../src/adapters/secrets/environment-secret-store.js';
import { ChildProcessShellExecutor } from '../../src/adapters/shell/child-process-shell-executor.js';
import type { JobChange } from '../../src/domain/jobs/job.js';
import type { JobRunner } from '../../src/ports/job-runner.js';
import { tempDir } from '../support/gateway-process.js';
import { waitFor } from '../support/http.js';
import { contractJob, describeJobRunnerContract } from './job-runner.contract.js';
import { AI_PROVIDERS } from '../../src/adapters/ai/ai-providers.js';

/** What `run` failed with, or undefined when it succeeded. */
const failureOf = (run: Promise<void>): Promise<Error | undefined> =>
  run.then(
    () => undefined,
    (error: Error) => error,
  );

const git = (dir: string, ...args: string[]): string => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });

const localRunner = async (agentCommand: string, timeoutMs = 10_000) => {
  const root = await tempDir('jobs');
  const agent = new CommandAgent(
    agentCommand,
    timeoutMs,
    new ChildProcessShellExecutor(),
    new EnvironmentSecretStore({ OPENAI_API_KEY: 'sk-contract' }, AI_PROVIDERS),
  );
  const runner = new LocalJobRunner({ repoDir: `${root}/repo`, worktreesDir: `${root}/worktrees` }, agent, new ChildProcessShellExecutor());
  return { runner, repo: `${root}/repo` };
};

const loopRunner = async (llm: FakeOpenAi, timeoutMs = 10_000) => {
  const root = await tempDir('jobs');
  const ai = new VercelAiClient({
    provider: 'custom',
    model: 'fake-model',
    providers: {
      anthropic: { apiKey: undefined, baseUrl: undefined },
      // The contract's jobs name openai: the fake speaks the chat completions protocol both use.
      openai: { apiKey: 'sk-contract', baseUrl: llm.baseUrl },
      google: { apiKey: undefined, baseUrl: undefined },
      custom: { apiKey: 'sk-local', baseUrl: llm.baseUrl },
    },
    timeoutMs,
    maxRetries: 0,
  });
  const runner = new LocalJobRunner(
    { repoDir: `${root}/repo`, worktreesDir: `${root}/worktrees` },
    new LoopAgent(ai, new ChildProcessShellExecutor(), new EnvironmentSecretStore({}, AI_PROVIDERS), 10, timeoutMs),
    new ChildProcessShellExecutor(),
  );
  return { runner, repo: `${root}/repo` };
};

describeJobRunnerContract('local, real git repository, scripted agent', async () => {
  const { runner, repo } = await localRunner('printf "%s" "$JOB_PROMPT" > work.txt; echo "Summary: wrote work.txt"');
  return {
    runner,
    outcome: 'succeeded',
    fileOnBranch: async (job, path) => git(repo, 'show', `${job.branch}:${path}`),
    close: async () => undefined,
  };
});

describeJobRunnerContract('local, built-in agent loop against a loopback OpenAI-compatible LLM', async () => {
  const llm = await startFakeOpenAi();
  llm.script([{ toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'hello' } }] }, { text: 'Wrote notes.txt' }]);
  const { runner, repo } = await loopRunner(llm);
  return {
    runner,
    outcome: 'succeeded',
    fileOnBranch: async (job, path) => git(repo, 'show', `${job.branch}:${path}`),
    close: () => llm.close(),
  };
});

/**
 * A fake of the GitHub REST API with nock, speaking its real request and response shapes.
 * (Reply callbacks stall node-fetch POST/PUT bodies under nock 15, so replies are static
 * and request bodies are read from the scope's request events.)
 */
const githubFake = () => {
  const api = nock('https://api.github.test', { reqheaders: { authorization: 'Bearer ghp_test', 'x-github-api-version': '2022-11-28' } })
    .persist()
    .get('/repos/acme/app')
    .reply(200, { default_branch: 'trunk' })
    .get('/repos/acme/app/git/ref/heads/trunk')
    .reply(200, { ref: 'refs/heads/trunk', object: { sha: 'abc123', type: 'commit' } })
    .get('/repos/acme/app/git/commits/abc123')
    .reply(200, { sha: 'abc123', tree: { sha: 'tree0' }, parents: [] })
    .post('/repos/acme/app/git/trees', (body: { base_tree?: string }) => body.base_tree === 'tree0')
    .reply(201, { sha: 'tree1', tree: [] })
    .post('/repos/acme/app/git/commits', (body: { tree?: string; parents?: string[] }) => body.tree === 'tree1' && body.parents?.join() === 'abc123')
    .reply(201, { sha: 'commit1', tree: { sha: 'tree1' } })
    .post('/repos/acme/app/git/refs', (body: { ref?: string; sha?: string }) => String(body.ref).startsWith('refs/heads/job/') && body.sha === 'commit1')
    .reply(201, { object: { sha: 'commit1' } });
  // The branch holds what the tree its ref's commit points at (tree1) was given.
  const branches = new Map<string, Map<string, string>>();
  let lastTree = new Map<string, string>();
  api.on('request', (req: { method: string; path?: string; url?: string }, _interceptor: unknown, body: string) => {
    const path = new URL(req.path ?? req.url ?? '', 'https://api.github.test').pathname;
    if (req.method !== 'POST') return;
    const request = JSON.parse(body) as { tree?: Array<{ path: string; content: string }>; ref?: string };
    if (path.endsWith('/git/trees')) lastTree = new Map((request.tree ?? []).map((entry) => [entry.path, entry.content]));
    if (path.endsWith('/git/refs')) branches.set(String(request.ref).replace('refs/heads/', ''), lastTree);
  });
  return { api, branches };
};

describeJobRunnerContract('GitHub Actions, GitHub REST faked with nock', async () => {
  if (!nock.isActive()) nock.activate();
  nock.disableNetConnect();
  const { branches } = githubFake();
  return {
    runner: new GithubActionsJobRunner(new GithubClient({ token: 'ghp_test', repo: 'acme/app', apiUrl: 'https://api.github.test' })),
    outcome: null,
    fileOnBranch: async (job, path) => branches.get(job.branch)?.get(path) ?? '',
    close: async () => {
      nock.cleanAll();
      nock.enableNetConnect();
      nock.restore();
    },
  };
});

describe('LocalJobRunner', () => {
  it('gives the agent its job variables and its provider secret, and none of the service environment', async () => {
    process.env.AGW_CONTRACT_PROBE = 'service-only';
    try {
      const { runner, repo } = await localRunner('echo "$JOB_ID|$LLM_PROVIDER|$LLM_MODEL|$OPENAI_API_KEY|${AGW_CONTRACT_PROBE:-absent}" > env.txt');
      const job = contractJob('x');
      await runner.run(job, async () => undefined, new AbortController().signal);
      expect(git(repo, 'show', `${job.branch}:env.txt`).trim()).to.equal(`${job.id}|openai|gpt-test|sk-contract|absent`);
    } finally {
      delete process.env.AGW_CONTRACT_PROBE;
    }
  });

  it('reports failure with the exit code, and the log and summary', async () => {
    const { runner } = await localRunner('echo working; echo "it broke" >&2; exit 4');
    const reports: JobChange[] = [];
    await runner.run(contractJob('x'), async (change) => void reports.push(change), new AbortController().signal);
    expect(reports.at(-1)).to.include({ status: 'failed', error: 'The agent exited with code 4', summary: 'it broke' });
    expect(reports.at(-1)?.log).to.contain('working');
  });

  it('reports a log and summary without the NUL bytes the agent printed (a text column holds none), and commits its work', async () => {
    // `find -print0`, a binary file shown: the last line (the summary) holds a NUL too.
    const { runner, repo } = await localRunner(`echo work > work.txt; printf 'binary\\000output\\n'; printf 'All\\000 done\\n'`);
    const job = contractJob('x');
    const reports: JobChange[] = [];
    await runner.run(job, async (change) => void reports.push(change), new AbortController().signal);
    expect(reports.at(-1)).to.include({ status: 'succeeded', summary: 'All done', log: 'binaryoutput\nAll done\n' });
    expect(git(repo, 'show', `${job.branch}:work.txt`)).to.equal('work\n');
    expect(git(repo, 'show', `${job.branch}:logs/${job.id}/agent.log`)).to.equal('binaryoutput\nAll done\n');
  });

  it('stops an agent that runs past the time limit', async () => {
    const { runner } = await localRunner('sleep 20', 300);
    const reports: JobChange[] = [];
    await runner.run(contractJob('x'), async (change) => void reports.push(change), new AbortController().signal);
    expect(reports.at(-1)).to.include({ status: 'failed', error: 'The agent did not finish within 300 ms' });
  });

  it('stops the agent when cancelled and reports the log and summary collected until then, without a status', async () => {
    const { runner, repo } = await localRunner('echo "step one done"; echo started > started.txt; sleep 20');
    const job = contractJob('x');
    const reports: JobChange[] = [];
    const controller = new AbortController();
    const marker = join(dirname(repo), 'worktrees', job.id, 'started.txt');
    const ran = runner.run(job, async (change) => void reports.push(change), controller.signal);
    await waitFor(() => existsSync(marker), 30_000, 'the agent started');
    const cancelledAt = Date.now();
    controller.abort('cancelled');
    await ran;
    // stopped, not waited for: far less than the 20 s the agent would take (any machine load aside)
    expect(Date.now() - cancelledAt).to.be.below(15_000);
    expect(reports).to.have.length(1);
    expect(reports[0]).to.not.have.property('status');
    expect(reports[0].log).to.contain('step one done');
    expect(reports[0].summary).to.equal('step one done');
  });

  it('removes, before its first job, the worktrees an earlier process left (stopped before it could)', async () => {
    const { runner, repo } = await localRunner('echo ok');
    const worktrees = join(dirname(repo), 'worktrees');
    await mkdir(join(worktrees, 'left-by-an-earlier-process', 'src'), { recursive: true });
    await runner.run(contractJob('x'), async () => undefined, new AbortController().signal);
    expect(await readdir(worktrees)).to.deep.equal([]);
  });

  it("puts a job's text and its summary in the commit as text: quotes, $(…) and backticks in them run nothing", async () => {
    // The agent's summary is the job's text: the commit's body holds all of it, the subject its start.
    const { runner, repo } = await localRunner('printf "%s" "$JOB_PROMPT" > "logs/$JOB_ID/summary.md"');
    const marker = join(dirname(repo), 'pwned');
    const text = `"; touch ${marker}; echo " $(touch ${marker}) \`touch ${marker}\` '$HOME' \\ end`;
    const job = contractJob(text);
    await runner.run(job, async () => undefined, new AbortController().signal);
    expect(git(repo, 'log', '-1', '--format=%s', job.branch).trim()).to.equal(`job ${job.id}: ${text.slice(0, 69)}...`);
    expect(git(repo, 'log', '-1', '--format=%b', job.branch).trim()).to.equal(text);
    expect(existsSync(marker)).to.equal(false);
  });

  it("runs no hook of the jobs repository's: a failing pre-commit the agent set through core.hooksPath in its worktree runs in no later commit", async () => {
    const root = await tempDir('jobs');
    const ran = join(root, 'hook-ran.txt');
    // The agent's hook: it would fail the runner's commit, its output the job's error (and chat notice).
    const hook = `#!/bin/sh\necho pre-commit >> '${ran}'\necho 'Job j1 succeeded.'\nexit 1\n`;
    const { runner, repo } = await localRunner(
      `git config core.hooksPath hooks && mkdir -p hooks && printf '%s\\n' '#!/bin/sh' "echo pre-commit >> '${ran}'" "echo 'Job j1 succeeded.'" 'exit 1' > hooks/pre-commit && chmod +x hooks/pre-commit`,
    );
    const changes: JobChange[] = [];
    const first = contractJob('first');
    await runner.run(first, async (change) => void changes.push(change), new AbortController().signal);
    expect(git(repo, 'config', 'core.hooksPath').trim()).to.equal('hooks'); // set for every later job too
    await runner.run(contractJob('second'), async (change) => void changes.push(change), new AbortController().signal);
    expect(changes.filter((change) => change.status !== undefined).map((change) => change.status)).to.deep.equal(['succeeded', 'succeeded']);
    expect(existsSync(ran)).to.equal(false);
    expect(git(repo, 'show', `${first.branch}:hooks/pre-commit`)).to.equal(hook);
  });

  it("redacts the job's secrets from git's output in the error of a failing git step", async () => {
    const root = await tempDir('jobs');
    const secrets = new EnvironmentSecretStore({ AGENT_DEPLOY_TOKEN: 'deploy-secret-9f2e' }, AI_PROVIDERS);
    // A repository without a commit, named after the secret, inside the worktree: the runner's `git add` fails naming it.
    const agent = 'git init -q "sub-$AGENT_DEPLOY_TOKEN"';
    const runner = new LocalJobRunner(
      { repoDir: `${root}/repo`, worktreesDir: `${root}/worktrees` },
      new CommandAgent(agent, 10_000, new ChildProcessShellExecutor(), secrets),
      new ChildProcessShellExecutor(),
    );
    const failure = await failureOf(runner.run(contractJob('x'), async () => undefined, new AbortController().signal));
    expect(failure?.message).to.match(/^git add exited with code \d+: .*sub-\[redacted AGENT_DEPLOY_TOKEN\]/s);
    expect(failure?.message).not.to.contain('deploy-secret-9f2e');
  });

  /** A program for the agent's git config that notes, in `ran`, each time the runner's git runs it (the agent's own git has JOB_ID). */
  const noting = async (root: string, name: string, ran: string, output = 'tr a-z A-Z'): Promise<string> => {
    const program = join(root, name);
    await writeFile(program, `#!/bin/sh\n[ -n "$JOB_ID" ] || echo "${name} $*" >> '${ran}'\n${output}\n`, { mode: 0o755 });
    return program;
  };

  it('runs no file system monitor the agent set in the repository config (core.fsmonitor)', async () => {
    const root = await tempDir('jobs');
    const ran = join(root, 'ran.txt');
    const monitor = await noting(root, 'fsmonitor', ran, 'exit 1');
    const { runner, repo } = await localRunner(`git config core.fsmonitor '${monitor}' && echo work > work.txt`);
    const changes: JobChange[] = [];
    const first = contractJob('first');
    await runner.run(first, async (change) => void changes.push(change), new AbortController().signal);
    expect(git(repo, 'config', 'core.fsmonitor').trim()).to.equal(monitor); // set for every later job too
    await runner.run(contractJob('second'), async (change) => void changes.push(change), new AbortController().signal);
    expect(changes.filter((change) => change.status !== undefined).map((change) => change.status)).to.deep.equal(['succeeded', 'succeeded']);
    expect(git(repo, 'show', `${first.branch}:work.txt`)).to.equal('work\n');
    expect(existsSync(ran)).to.equal(false);
  });

  it("runs no filter driver the agent set, whatever its name, in the runner's git add: files are committed as they are", async () => {
    const root = await tempDir('jobs');
    const ran = join(root, 'ran.txt');
    const filter = await noting(root, 'filter', ran);
    // A long-running filter that fails at once (git would wait for its greeting).
    const longRunning = await noting(root, 'process', ran, 'exit 1');
    // Names with a dot (subsection `a.b`), an `=` (which `-c` cannot carry), and a `process` filter; all required.
    const drivers: Array<[string, string, string]> = [
      ['x', 'clean', filter],
      ['a.b', 'clean', filter],
      ['e=q', 'clean', filter],
      ['p', 'process', longRunning],
    ];
    const setup = drivers
      .map(([name, kind, program], index) => {
        const file = `f${index}.txt`;
        return `git config 'filter.${name}.${kind}' '${program} ${name}' && git config 'filter.${name}.required' true && echo '${file} filter=${name}' >> .gitattributes && echo hello > ${file}`;
      })
      .join(' && ');
    const { runner, repo } = await localRunner(setup);
    const job = contractJob('x');
    const changes: JobChange[] = [];
    await runner.run(job, async (change) => void changes.push(change), new AbortController().signal);
    expect(changes.at(-1)?.status).to.equal('succeeded');
    for (const index of drivers.keys()) expect(git(repo, 'show', `${job.branch}:f${index}.txt`)).to.equal('hello\n');
    expect(existsSync(ran)).to.equal(false);
  });

  it("runs no smudge filter the agent set when the runner checks out the next job's worktree", async () => {
    const root = await tempDir('jobs');
    const ran = join(root, 'ran.txt');
    const filter = await noting(root, 'smudge', ran);
    // The agent commits a filtered file itself and moves main (every next worktree's start) to it.
    const { runner, repo } = await localRunner(
      `git config filter.x.smudge '${filter}' && echo '*.x filter=x' > .gitattributes && echo hello > f.x && git add -A && git -c user.name=a -c user.email=a@localhost commit -qm agent && git update-ref refs/heads/main HEAD`,
    );
    const changes: JobChange[] = [];
    await runner.run(contractJob('first'), async (change) => void changes.push(change), new AbortController().signal);
    const second = contractJob('second');
    await runner.run(second, async (change) => void changes.push(change), new AbortController().signal);
    expect(changes.filter((change) => change.status !== undefined).map((change) => change.status)).to.deep.equal(['succeeded', 'succeeded']);
    expect(git(repo, 'show', `${second.branch}:f.x`)).to.equal('hello\n');
    expect(existsSync(ran)).to.equal(false);
  });

  for (const [kind, condition] of [
    ['onbranch', "'includeIf.onbranch:job/**.path'"],
    ['gitdir', '"includeIf.gitdir:$(cd "$(git rev-parse --git-common-dir)" && pwd -P)/worktrees/.path"'],
  ]) {
    it(`runs no smudge filter of a config include on a condition (${kind}:) that holds in the next job's worktree only, when the runner checks it out`, async () => {
      const root = await tempDir('jobs');
      const ran = join(root, 'ran.txt');
      const filter = await noting(root, 'smudge', ran);
      // The agent's driver, in a file the repository's config includes where the condition holds:
      // on a job's branch, in a worktree — not in the repository's directory, on main.
      const include = join(root, 'include');
      await writeFile(include, `[filter "x"]\n\tsmudge = ${filter}\n`);
      const { runner, repo } = await localRunner(
        `git config ${condition} '${include}' && echo '*.x filter=x' > .gitattributes && echo hello > f.x && git add -A && git -c user.name=a -c user.email=a@localhost commit -qm agent && git update-ref refs/heads/main HEAD`,
      );
      const changes: JobChange[] = [];
      await runner.run(contractJob('first'), async (change) => void changes.push(change), new AbortController().signal);
      expect(git(repo, 'config', '--list', '--includes'), 'the include does not hold on main').not.to.contain('filter.x.smudge');
      const second = contractJob('second');
      await runner.run(second, async (change) => void changes.push(change), new AbortController().signal);
      expect(changes.filter((change) => change.status !== undefined).map((change) => change.status)).to.deep.equal(['succeeded', 'succeeded']);
      expect(git(repo, 'show', `${second.branch}:f.x`)).to.equal('hello\n');
      expect(existsSync(ran)).to.equal(false);
    });
  }

  it("runs no upload-pack the agent set for a promisor remote when the next job's checkout would fetch a missing object lazily", async () => {
    const root = await tempDir('jobs');
    const canary = join(root, 'PWNED');
    // The agent makes the repository a partial clone of a "promisor" remote whose upload-pack is a
    // program of its own, and points main at a commit whose tree names a blob the repository lacks.
    const { runner, repo } = await localRunner(
      [
        'git config core.repositoryFormatVersion 1',
        'git config extensions.partialClone origin',
        'git config remote.origin.url "$(cd "$(git rev-parse --git-common-dir)" && pwd -P)"',
        'git config remote.origin.promisor true',
        `git config remote.origin.uploadpack 'touch ${canary}; git-upload-pack'`,
        'blob=$(echo absent | git hash-object --stdin)',
        `tree=$(printf '100644 blob %s\tmissing.txt\n' "$blob" | git mktree --missing)`,
        'commit=$(git -c user.name=a -c user.email=a@localhost commit-tree "$tree" -m agent)',
        'git update-ref refs/heads/main "$commit"',
      ].join(' && '),
    );
    await runner.run(contractJob('first'), async () => undefined, new AbortController().signal);
    expect(git(repo, 'config', 'remote.origin.promisor').trim()).to.equal('true'); // set for every later job too
    const second = contractJob('second');
    const failure = await failureOf(runner.run(second, async () => undefined, new AbortController().signal));
    expect(existsSync(canary)).to.equal(false);
    // Failing closed is fine: then nothing is committed.
    if (failure !== undefined) expect(git(repo, 'rev-parse', second.branch)).to.equal(git(repo, 'rev-parse', 'main'));
  });

  it('fails the step naming them when the agent set config-defined hooks (hook.<name>.command, which core.hooksPath does not keep out)', async () => {
    const root = await tempDir('jobs');
    const ran = join(root, 'ran.txt');
    const program = await noting(root, 'hook', ran, 'exit 0');
    const { runner, repo } = await localRunner(`git config hook.x.command '${program}' && git config hook.x.event pre-commit && echo work > work.txt`);
    const job = contractJob('x');
    const failure = await failureOf(runner.run(job, async () => undefined, new AbortController().signal));
    expect(failure?.message).to.match(/^git config defines hooks \(hook\.x\.command, hook\.x\.event\)/);
    expect(git(repo, 'rev-parse', job.branch)).to.equal(git(repo, 'rev-parse', 'main'));
    expect(existsSync(ran)).to.equal(false);
  });

  describe("with Git LFS (a git-lfs of the test's own on PATH, filter.lfs as `git lfs install` sets it)", () => {
    const saved = { HOME: process.env.HOME, PATH: process.env.PATH };
    /**
     * A stand-in for git-lfs: `clean` (and the `filter-process` of git's long-running filter
     * protocol) turns a file into a pointer that holds its content, `smudge` back (unless
     * GIT_LFS_SKIP_SMUDGE), `checkout` the worktree's pointers back.
     */
    const fakeGitLfs = `#!${process.execPath}
const MARK = 'fake-lfs-pointer ';
const clean = (data) => (data.toString('latin1').startsWith(MARK) ? data : Buffer.from(MARK + data.toString('base64') + '\\n'));
const content = (data) => (data.toString('latin1').startsWith(MARK) ? Buffer.from(data.toString('latin1').slice(MARK.length), 'base64') : data);
// As git-lfs does, GIT_LFS_SKIP_SMUDGE leaves pointers: \`git lfs checkout\` replaces them.
const smudge = process.env.GIT_LFS_SKIP_SMUDGE === '1' ? (data) => data : content;
const command = process.argv[2];
if (command === 'checkout') {
  const fs = require('node:fs');
  const files = require('node:child_process').execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' }).split('\\0').filter(Boolean);
  for (const file of files) fs.writeFileSync(file, content(fs.readFileSync(file)));
} else if (command === 'clean' || command === 'smudge') {
  process.stdout.write((command === 'clean' ? clean : smudge)(require('node:fs').readFileSync(0)));
} else if (command !== 'filter-process') {
  process.exit(2);
} else {
  let buffered = Buffer.alloc(0);
  let ended = false;
  let wake = () => undefined;
  process.stdin.on('data', (data) => { buffered = Buffer.concat([buffered, data]); wake(); });
  process.stdin.on('end', () => { ended = true; wake(); });
  const take = async (length) => {
    while (buffered.length < length) {
      if (ended) process.exit(0);
      await new Promise((resolve) => { wake = resolve; });
    }
    const part = buffered.subarray(0, length);
    buffered = buffered.subarray(length);
    return part;
  };
  const packet = async () => {
    const length = Number.parseInt((await take(4)).toString(), 16);
    return length === 0 ? null : take(length - 4);
  };
  const packets = async () => {
    const all = [];
    for (let one = await packet(); one !== null; one = await packet()) all.push(one);
    return all;
  };
  const send = (data) => process.stdout.write(Buffer.concat([Buffer.from((data.length + 4).toString(16).padStart(4, '0')), data]));
  const flush = () => process.stdout.write('0000');
  (async () => {
    await packets();
    send(Buffer.from('git-filter-server\\n'));
    send(Buffer.from('version=2\\n'));
    flush();
    await packets();
    send(Buffer.from('capability=clean\\n'));
    send(Buffer.from('capability=smudge\\n'));
    flush();
    for (;;) {
      const header = (await packets()).map(String);
      const out = (header.includes('command=clean\\n') ? clean : smudge)(Buffer.concat(await packets()));
      send(Buffer.from('status=success\\n'));
      flush();
      for (let at = 0; at < out.length; at += 65516) send(out.subarray(at, at + 65516));
      flush();
      flush();
    }
  })();
}
`;
    const pointer = (content: string): string => `fake-lfs-pointer ${Buffer.from(content).toString('base64')}\n`;

    beforeEach(async () => {
      const home = await tempDir('home');
      await mkdir(join(home, 'bin'));
      await writeFile(join(home, 'bin', 'git-lfs'), fakeGitLfs, { mode: 0o755 });
      await writeFile(
        join(home, '.gitconfig'),
        '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true\n',
      );
      process.env.HOME = home;
      process.env.PATH = `${join(home, 'bin')}:${saved.PATH}`;
    });
    afterEach(() => {
      process.env.HOME = saved.HOME;
      process.env.PATH = saved.PATH;
    });

    it("keeps it: what the agent writes to an LFS-tracked file is committed as LFS's pointer, and the next worktree has the file's content", async () => {
      const { runner, repo } = await localRunner(
        "if [ -f data.bin ]; then cat data.bin > seen.txt; else echo '*.bin filter=lfs -text' > .gitattributes && echo large > data.bin; fi",
      );
      const changes: JobChange[] = [];
      const first = contractJob('first');
      await runner.run(first, async (change) => void changes.push(change), new AbortController().signal);
      expect(git(repo, 'show', `${first.branch}:data.bin`)).to.equal(pointer('large\n'));
      git(repo, 'update-ref', 'refs/heads/main', first.branch);
      const second = contractJob('second');
      await runner.run(second, async (change) => void changes.push(change), new AbortController().signal);
      expect(changes.filter((change) => change.status !== undefined).map((change) => change.status)).to.deep.equal(['succeeded', 'succeeded']);
      expect(git(repo, 'show', `${second.branch}:seen.txt`)).to.equal('large\n');
      expect(git(repo, 'show', `${second.branch}:data.bin`)).to.equal(pointer('large\n'));
    });

    it('runs no job step through git-lfs in a repository without LFS-tracked files: git-lfs may be configured and missing', async () => {
      process.env.PATH = saved.PATH;
      const { runner, repo } = await localRunner('echo done > out.txt');
      const changes: JobChange[] = [];
      const job = contractJob('no-lfs');
      await runner.run(job, async (change) => void changes.push(change), new AbortController().signal);
      expect(changes.filter((change) => change.status !== undefined).map((change) => change.status)).to.deep.equal(['succeeded']);
      expect(git(repo, 'show', `${job.branch}:out.txt`)).to.equal('done\n');
    });

    it('takes a warning of git on reading attributes for no LFS-tracked file: runs no job step through a missing git-lfs', async () => {
      process.env.PATH = saved.PATH;
      // A negative pattern in .gitattributes, on main: git warns on stderr whenever it reads it.
      const { runner, repo } = await localRunner(
        "printf '!x filter=y\\n' > .gitattributes && git add -A && git -c user.name=a -c user.email=a@localhost commit -qm agent && git update-ref refs/heads/main HEAD",
      );
      const changes: JobChange[] = [];
      await runner.run(contractJob('first'), async (change) => void changes.push(change), new AbortController().signal);
      expect(git(repo, 'show', 'main:.gitattributes')).to.equal('!x filter=y\n');
      await runner.run(contractJob('second'), async (change) => void changes.push(change), new AbortController().signal);
      expect(changes.filter((change) => change.status !== undefined).map((change) => change.status)).to.deep.equal(['succeeded', 'succeeded']);
    });

    const failing = async (agent: string) => {
      const { runner, repo } = await localRunner(`${agent} && echo '*.bin filter=lfs -text' > .gitattributes && echo large > data.bin`);
      const job = contractJob('x');
      const failure = await failureOf(runner.run(job, async () => undefined, new AbortController().signal));
      // Nothing committed: no raw data.bin in the history.
      expect(git(repo, 'rev-parse', job.branch)).to.equal(git(repo, 'rev-parse', 'main'));
      return failure?.message;
    };

    it('fails the step naming the setting when the agent changed filter.lfs (its process): runs it no more than it commits LFS-tracked files raw', async () => {
      const root = await tempDir('jobs');
      const ran = join(root, 'ran.txt');
      const program = await noting(root, 'process', ran, 'exit 1');
      expect(await failing(`git config filter.lfs.process '${program}'`)).to.match(
        /^git config's filter\.lfs is not Git LFS's own \(filter\.lfs\.process not as `git lfs install` sets it\)/,
      );
      expect(existsSync(ran)).to.equal(false);
    });

    it('fails the step naming them when the agent set Git LFS extensions (programs git-lfs would run)', async () => {
      const root = await tempDir('jobs');
      const ran = join(root, 'ran.txt');
      const program = await noting(root, 'extension', ran, 'cat');
      expect(await failing(`git config lfs.extension.x.clean '${program} %f' && git config lfs.extension.x.priority 0`)).to.match(
        /^git config sets Git LFS extensions \(lfs\.extension\.x\.clean, lfs\.extension\.x\.priority\)/,
      );
      expect(existsSync(ran)).to.equal(false);
    });
  });

  it('fails the step, naming what git said, when the config the filter drivers are listed from cannot be read', async () => {
    const { runner } = await localRunner('printf "[broken\\n" >> "$(git rev-parse --git-common-dir)/config"');
    const failure = await failureOf(runner.run(contractJob('x'), async () => undefined, new AbortController().signal));
    expect(failure?.message).to.match(/^git config exited with code \d+: .*bad config line/s);
  });

  it("reads the operator's attributes file (core.attributesFile): its text=auto commits line endings as LF", async () => {
    const home = await tempDir('home');
    await writeFile(join(home, 'attributes'), '* text=auto\n');
    await writeFile(join(home, '.gitconfig'), `[core]\n\tattributesFile = ${join(home, 'attributes')}\n`);
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const { runner, repo } = await localRunner("printf 'one\\r\\ntwo\\r\\n' > crlf.txt");
      const job = contractJob('x');
      await runner.run(job, async () => undefined, new AbortController().signal);
      expect(git(repo, 'show', `${job.branch}:crlf.txt`)).to.equal('one\ntwo\n');
    } finally {
      process.env.HOME = saved;
    }
  });

  it('fails naming the git command and what git said when a git step fails', async () => {
    const { runner } = await localRunner('echo ok');
    const job = { ...contractJob('x'), branch: 'job/..not a branch' };
    const failure = await failureOf(runner.run(job, async () => undefined, new AbortController().signal));
    expect(failure?.message).to.match(/^git worktree exited with code \d+: .*not a valid branch name/s);
  });

  it('makes the jobs repository afresh when a stop cut its making short, instead of keeping one without a commit', async () => {
    const { runner, repo } = await localRunner('echo ok > out.txt');
    // What a stop between `git init` and the first commit leaves beside the repository.
    await mkdir(`${repo}.new`, { recursive: true });
    git(`${repo}.new`, 'init', '-q', '-b', 'main');
    const job = contractJob('x');
    const reports: JobChange[] = [];
    await runner.run(job, async (change) => void reports.push(change), new AbortController().signal);
    expect(reports.at(-1)?.status).to.equal('succeeded');
    expect(git(repo, 'show', `${job.branch}:out.txt`)).to.equal('ok\n');
    expect(existsSync(`${repo}.new`)).to.equal(false);
  });

  it('refuses to take over a directory that is not a git repository and not empty, saying so', async () => {
    const { runner, repo } = await localRunner('echo ok');
    await mkdir(repo, { recursive: true });
    await writeFile(join(repo, 'notes.txt'), 'mine');
    const failure = await failureOf(runner.run(contractJob('x'), async () => undefined, new AbortController().signal));
    expect(failure?.message).to.equal(`Cannot create the jobs repository in ${repo}: it exists, is not empty and is not a git repository (ENOTEMPTY)`);
    expect(await readFile(join(repo, 'notes.txt'), 'utf8')).to.equal('mine');
  });

  it('runs jobs side by side in their own worktrees', async () => {
    const { runner, repo } = await localRunner('printf "%s" "$JOB_ID" > id.txt; sleep 0.2');
    const jobs = [contractJob('a'), contractJob('b'), contractJob('c')];
    await Promise.all(jobs.map((job) => runner.run(job, async () => undefined, new AbortController().signal)));
    for (const job of jobs) expect(git(repo, 'show', `${job.branch}:id.txt`)).to.equal(job.id);
  });
});

describe('LocalJobRunner with the built-in agent loop', () => {
  let llm: FakeOpenAi;
  beforeEach(async () => {
    llm = await startFakeOpenAi();
  });
  afterEach(() => llm.close());

  it('lets the model list, write, read files and run commands in the worktree, and commits the result', async () => {
    llm.script([
      { toolCalls: [{ name: 'list_files', arguments: { path: '.' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'src/greeting.txt', content: 'Hello' } }] },
      { toolCalls: [{ name: 'run_command', arguments: { command: 'cat src/greeting.txt | tr a-z A-Z > shout.txt' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'shout.txt' } }] },
      { text: 'Added a greeting and its loud twin.' },
    ]);
    const { runner, repo } = await loopRunner(llm);
    const job = contractJob('Add a greeting');
    const reports: JobChange[] = [];
    await runner.run(job, async (change) => void reports.push(change), new AbortController().signal);
    expect(reports.at(-1)).to.include({ status: 'succeeded', summary: 'Added a greeting and its loud twin.' });
    expect(git(repo, 'show', `${job.branch}:src/greeting.txt`)).to.equal('Hello');
    expect(git(repo, 'show', `${job.branch}:shout.txt`).trim()).to.equal('HELLO');
    expect(llm.requests[0].model).to.equal('gpt-test');
    expect(JSON.stringify(llm.requests[0].messages)).to.contain('Add a greeting');
    expect(JSON.stringify(llm.requests[1].messages)).to.contain('README.md');
    expect(JSON.stringify(llm.requests[4].messages)).to.contain('HELLO');
  });

  it('keeps the model inside the worktree', async () => {
    llm.script([
      { toolCalls: [{ name: 'read_file', arguments: { path: '../../../../etc/passwd' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: '/tmp/agw-escape.txt', content: 'x' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: '.git/config' } }] },
      { text: 'Could not.' },
    ]);
    const { runner } = await loopRunner(llm);
    await runner.run(contractJob('Escape'), async () => undefined, new AbortController().signal);
    const toolResults = llm.requests
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    expect(toolResults).to.have.length(3);
    for (const result of toolResults) expect(result).to.match(/outside the repository|relative to the repository root/);
  });

  it('keeps the model inside the worktree through links it made: no write through one, none into .git, no summary read through one', async () => {
    const outside = await tempDir('jobs-outside');
    await writeFile(join(outside, 'secret.txt'), 'SERVICE_SECRET=s3cr3t\n');
    llm.script([
      {
        toolCalls: [
          {
            name: 'run_command',
            arguments: {
              command: `ln -s ${outside}/planted.txt dangling && ln -s .git gitlink && for d in logs/*/; do ln -s ${outside}/secret.txt "$d"summary.md; done`,
            },
          },
        ],
      },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'dangling', content: 'planted' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'gitlink/hooks/pre-commit', content: '#!/bin/sh\ntouch pwned' } }] },
      { text: 'Done.' },
    ]);
    const { runner } = await loopRunner(llm);
    const reports: JobChange[] = [];
    await runner.run(contractJob('Escape through links'), async (change) => void reports.push(change), new AbortController().signal);
    const toolResults = llm.requests
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    expect(toolResults.slice(1)).to.have.length(2);
    expect(toolResults[1]).to.match(/dangling is a symbolic link; write_file does not write through links/);
    expect(toolResults[2]).to.match(/outside the repository/);
    expect(existsSync(join(outside, 'planted.txt')), 'nothing written outside').to.equal(false);
    expect(JSON.stringify(reports)).not.to.contain('s3cr3t');
  });

  it("reports the model's final answer and a failing call's error without NUL bytes (a text column holds none)", async () => {
    llm.script([{ text: 'Changed\u0000 nothing' }]);
    const { runner } = await loopRunner(llm);
    const reports: JobChange[] = [];
    await runner.run(contractJob('x'), async (change) => void reports.push(change), new AbortController().signal);
    expect(reports.at(-1)).to.include({ status: 'succeeded', summary: 'Changed nothing', log: 'Changed nothing' });
    llm.script([{ status: 500, body: { error: { message: 'model\u0000 exploded', type: 'server_error', code: null } } }]);
    const failed: JobChange[] = [];
    await runner.run(contractJob('y'), async (change) => void failed.push(change), new AbortController().signal);
    expect(failed.at(-1)?.status).to.equal('failed');
    expect(failed.at(-1)?.error).to.contain('model exploded').and.not.contain('\u0000');
  });

  it('fails the job with the reason when the model call fails', async () => {
    llm.script([{ status: 500, body: { error: { message: 'model exploded', type: 'server_error', code: null } } }]);
    const { runner } = await loopRunner(llm);
    const reports: JobChange[] = [];
    await runner.run(contractJob('x'), async (change) => void reports.push(change), new AbortController().signal);
    expect(reports.at(-1)?.status).to.equal('failed');
    expect(reports.at(-1)?.error).to.contain('model exploded');
  });
});

describe('GithubActionsJobRunner against GitHub REST faked with nock', () => {
  before(() => {
    if (!nock.isActive()) nock.activate();
    nock.disableNetConnect();
  });
  afterEach(() => nock.cleanAll());
  after(() => {
    nock.enableNetConnect();
    nock.restore();
  });

  it("reads the branch's latest run of the agent's workflow started by a push: in progress, then its conclusion", async () => {
    const runner = new GithubActionsJobRunner(new GithubClient({ token: 'ghp_test', repo: 'acme/app', apiUrl: 'https://api.github.test' }));
    const job = contractJob('x');
    const runs = (status: string, conclusion: string | null) => ({
      total_count: 1,
      workflow_runs: [{ id: 1, status, conclusion, html_url: 'https://github.test/acme/app/actions/runs/1', head_branch: job.branch }],
    });
    nock('https://api.github.test')
      .get('/repos/acme/app/actions/workflows/agent-job.yml/runs')
      .query({ branch: job.branch, event: 'push', per_page: '10' })
      .reply(200, runs('in_progress', null));
    expect(await runner.poll(job)).to.deep.equal({ runUrl: 'https://github.test/acme/app/actions/runs/1' });
    nock('https://api.github.test').get('/repos/acme/app/actions/workflows/agent-job.yml/runs').query(true).reply(200, runs('completed', 'failure'));
    expect(await runner.poll(job)).to.deep.equal({ runUrl: 'https://github.test/acme/app/actions/runs/1', status: 'failed' });
    nock('https://api.github.test').get('/repos/acme/app/actions/workflows/agent-job.yml/runs').query(true).reply(200, { total_count: 0, workflow_runs: [] });
    expect(await runner.poll(job)).to.equal(null);
  });

  it("passes over the newest runs whose jobs all skipped (a push after the agent's work), to the run that did the job", async () => {
    const runner = new GithubActionsJobRunner(new GithubClient({ token: 'ghp_test', repo: 'acme/app', apiUrl: 'https://api.github.test' }));
    const job = contractJob('x');
    const run = (id: number, conclusion: string) => ({
      id,
      status: 'completed',
      conclusion,
      html_url: `https://github.test/acme/app/actions/runs/${id}`,
      head_branch: job.branch,
    });
    nock('https://api.github.test')
      .get('/repos/acme/app/actions/workflows/agent-job.yml/runs')
      .query(true)
      .reply(200, { total_count: 3, workflow_runs: [run(3, 'skipped'), run(2, 'skipped'), run(1, 'success')] });
    expect(await runner.poll(job)).to.deep.equal({ runUrl: 'https://github.test/acme/app/actions/runs/1', status: 'succeeded' });
    nock('https://api.github.test')
      .get('/repos/acme/app/actions/workflows/agent-job.yml/runs')
      .query(true)
      .reply(200, { total_count: 1, workflow_runs: [run(4, 'skipped')] });
    expect(await runner.poll(job)).to.equal(null);
    // One on the agent's own commit, still running (it will skip): not the job's run either.
    nock('https://api.github.test')
      .get('/repos/acme/app/actions/workflows/agent-job.yml/runs')
      .query(true)
      .reply(200, {
        total_count: 2,
        workflow_runs: [
          { ...run(6, 'skipped'), status: 'in_progress', conclusion: null, head_commit: { message: `job ${job.id}: agent work [agent-done]` } },
          { ...run(5, 'success'), status: 'in_progress', conclusion: null, head_commit: { message: `job ${job.id}: start` } },
        ],
      });
    expect(await runner.poll(job)).to.deep.equal({ runUrl: 'https://github.test/acme/app/actions/runs/5' });
  });

  it("stops the job's workflow run when the job is cancelled, and leaves a completed one alone", async () => {
    const runner = new GithubActionsJobRunner(new GithubClient({ token: 'ghp_test', repo: 'acme/app', apiUrl: 'https://api.github.test' }));
    const job = contractJob('x');
    const runs = (status: string) => ({ total_count: 1, workflow_runs: [{ id: 77, status, conclusion: null, html_url: 'https://github.test/r/77' }] });
    nock('https://api.github.test').get('/repos/acme/app/actions/workflows/agent-job.yml/runs').query(true).reply(200, runs('in_progress'));
    const cancelled = nock('https://api.github.test').post('/repos/acme/app/actions/runs/77/cancel').reply(202, {});
    await runner.stopElsewhere(job);
    expect(cancelled.isDone()).to.equal(true);
    nock('https://api.github.test').get('/repos/acme/app/actions/workflows/agent-job.yml/runs').query(true).reply(200, runs('completed'));
    await runner.stopElsewhere(job);
    nock('https://api.github.test').get('/repos/acme/app/actions/workflows/agent-job.yml/runs').query(true).reply(200, { total_count: 0, workflow_runs: [] });
    await runner.stopElsewhere(job);
    expect(nock.pendingMocks()).to.deep.equal([]);
  });

  it('names the failing call and status, never the token', async () => {
    const runner: JobRunner = new GithubActionsJobRunner(new GithubClient({ token: 'ghp_secret_token', repo: 'acme/app', apiUrl: 'https://api.github.test' }));
    nock('https://api.github.test').get('/repos/acme/app').reply(401, { message: 'Bad credentials' });
    const error = await runner.run(contractJob('x'), async () => undefined, new AbortController().signal).catch((e: Error) => e);
    expect((error as Error).message).to.equal('GitHub GET /repos/acme/app answered 401: Bad credentials');
    expect((error as Error).message).not.to.contain('ghp_secret_token');
  });

  describe('a job whose workflow run never appears', () => {
    const api = 'https://api.github.test';
    const RUN_START_MS = 10 * 60_000;
    const runsPath = '/repos/acme/app/actions/workflows/agent-job.yml/runs';
    const noRuns = () => nock(api).get(runsPath).query(true).reply(200, { total_count: 0, workflow_runs: [] });
    const make = (clock: FixedClock) =>
      new GithubActionsJobRunner(new GithubClient({ token: 'ghp_test', repo: 'acme/app', apiUrl: api, attempts: 1 }), 'agent-job.yml', {
        clock,
        runStartMs: RUN_START_MS,
      });

    it('ends failed through the poll once no run appeared for CODEHOST_RUN_START_SECONDS since the hand-over, the error naming what to check', async () => {
      const handedOver = new Date('2026-12-01T09:00:00Z');
      const clock = new FixedClock(handedOver);
      const jobs = new InMemoryJobRepository();
      const job = { ...contractJob('x'), createdAt: handedOver, updatedAt: handedOver };
      await jobs.add(job);
      const poll = new PollJobs(jobs, make(clock), clock, new RecordingLogger());
      noRuns();
      clock.advance(RUN_START_MS - 1);
      expect(await poll.execute(), 'still within the time').to.equal(0);
      expect((await jobs.get(job.id))?.status).to.equal('running');
      noRuns();
      clock.advance(1);
      expect(await poll.execute()).to.equal(1);
      const failed = await jobs.get(job.id);
      expect(failed).to.include({ status: 'failed', error: noRunError('agent-job.yml', 'acme/app', job.branch, RUN_START_MS) });
      expect(failed?.error).to.equal(
        `No run of the workflow agent-job.yml appeared on ${job.branch} within 10 minutes of the hand-off (CODEHOST_RUN_START_SECONDS): ` +
          'check that .github/workflows/agent-job.yml exists on the default branch of acme/app and runs on pushes to job/** ' +
          '(CODEHOST_WORKFLOW names the file), that GitHub Actions are enabled for acme/app, and that CODEHOST_TOKEN may read Actions and write contents',
      );
      expect(nock.pendingMocks()).to.deep.equal([]);
    });

    it('leaves a job alone whose run an event reported (its run URL) or whose pull request came, however long ago', async () => {
      const clock = new FixedClock(new Date('2026-12-01T09:00:00Z'));
      const runner = make(clock);
      const job = { ...contractJob('x'), updatedAt: clock.now() };
      clock.advance(24 * 3_600_000);
      noRuns();
      expect(await runner.poll({ ...job, runUrl: 'https://github.test/acme/app/actions/runs/1' })).to.equal(null);
      noRuns();
      expect(await runner.poll({ ...job, prUrl: 'https://github.test/acme/app/pull/1' })).to.equal(null);
    });

    it("fails it naming GitHub's refusal to list the workflow's runs (404: no such workflow file), which until then is thrown as before; passing trouble never fails it", async () => {
      const clock = new FixedClock(new Date('2026-12-01T09:00:00Z'));
      const runner = make(clock);
      const job = { ...contractJob('x'), updatedAt: clock.now() };
      nock(api).get(runsPath).query(true).reply(404, { message: 'Not Found' });
      expect(((await runner.poll(job).catch((e: Error) => e)) as Error).message).to.match(/answered 404: Not Found$/);
      clock.advance(RUN_START_MS);
      nock(api).get(runsPath).query(true).reply(503, { message: 'Service Unavailable' });
      expect(((await runner.poll(job).catch((e: Error) => e)) as Error).message).to.match(/answered 503/);
      nock(api).get(runsPath).query(true).reply(404, { message: 'Not Found' });
      const change = await runner.poll(job);
      expect(change?.status).to.equal('failed');
      expect(change?.error).to.equal(
        noRunError(
          'agent-job.yml',
          'acme/app',
          job.branch,
          RUN_START_MS,
          'GitHub refused to list its runs (GitHub GET /repos/acme/app/actions/workflows/agent-job.yml/runs answered 404: Not Found)',
        ),
      );
    });
  });

  describe('#run against passing trouble and an earlier hand-over', () => {
    const api = 'https://api.github.test';
    const make = (waits: number[]) =>
      new GithubActionsJobRunner(new GithubClient({ token: 'ghp_test', repo: 'acme/app', apiUrl: api, sleep: async (ms) => void waits.push(ms) })) as JobRunner;
    /** The commit adding job.md on top of main's head `abc`: its tree, then the commit. */
    const commitOnMain = () => {
      nock(api)
        .get('/repos/acme/app/git/commits/abc')
        .reply(200, { sha: 'abc', tree: { sha: 't0' } });
      nock(api).post('/repos/acme/app/git/trees').reply(201, { sha: 't1' });
      nock(api).post('/repos/acme/app/git/commits').reply(201, { sha: 'c1' });
    };
    const hand = async (runner: JobRunner) => {
      const reports: JobChange[] = [];
      await runner.run(contractJob('x'), async (change) => void reports.push(change), new AbortController().signal);
      return reports;
    };

    it('waits as GitHub asks through a rate limit (403 with retry-after) and a 503, then hands the job over', async () => {
      const waits: number[] = [];
      nock(api).get('/repos/acme/app').reply(403, { message: 'You have exceeded a secondary rate limit' }, { 'retry-after': '2' });
      nock(api).get('/repos/acme/app').reply(200, { default_branch: 'main' });
      nock(api)
        .get('/repos/acme/app/git/ref/heads/main')
        .reply(200, { object: { sha: 'abc' } });
      commitOnMain();
      nock(api).post('/repos/acme/app/git/refs').reply(503, { message: 'Service Unavailable' });
      nock(api).post('/repos/acme/app/git/refs').reply(201, { ref: 'refs/heads/job/x' });
      expect((await hand(make(waits))).at(-1)?.summary).to.match(/^Handed to GitHub Actions/);
      expect(waits).to.deep.equal([2000, 1000]);
      expect(nock.isDone()).to.equal(true);
    });

    it('takes the branch an earlier hand-over of the job made (with its job file) as its own', async () => {
      nock(api).get('/repos/acme/app').reply(200, { default_branch: 'main' });
      nock(api)
        .get('/repos/acme/app/git/ref/heads/main')
        .reply(200, { object: { sha: 'abc' } });
      commitOnMain();
      nock(api).post('/repos/acme/app/git/refs').reply(422, { message: 'Reference already exists' });
      expect((await hand(make([]))).at(-1)?.summary).to.match(/^Handed to GitHub Actions/);
      expect(nock.isDone()).to.equal(true);
    });

    it('fails at once, naming the status, when the rate limit lifts later than a minute from now', async () => {
      const waits: number[] = [];
      const reset = String(Math.floor(Date.now() / 1000) + 3600);
      nock(api)
        .get('/repos/acme/app')
        .reply(403, { message: 'API rate limit exceeded for user' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset });
      const error = await hand(make(waits)).catch((e: Error) => e);
      expect((error as Error).message).to.equal('GitHub GET /repos/acme/app answered 403: API rate limit exceeded for user');
      expect(waits).to.deep.equal([]);
    });

    it('stops its calls once its signal aborts (the task taken back): none after the one under way, which is given up', async () => {
      const controller = new AbortController();
      nock(api).get('/repos/acme/app').reply(200, { default_branch: 'main' });
      // The take-back comes while the default branch's head is asked for: its answer is never used.
      nock(api)
        .get('/repos/acme/app/git/ref/heads/main')
        .reply(() => {
          controller.abort(new Error('the task queue took this task back: its claim was lost'));
          return [200, { object: { sha: 'abc' } }];
        });
      commitOnMain();
      const refs = nock(api).post('/repos/acme/app/git/refs').reply(201, { ref: 'refs/heads/job/x' });
      const reports: JobChange[] = [];
      const error = await make([])
        .run(contractJob('x'), async (change) => void reports.push(change), controller.signal)
        .catch((e: Error) => e);
      expect(error).to.be.instanceOf(Error);
      expect(refs.isDone(), 'no branch made').to.equal(false);
      expect(nock.pendingMocks(), 'no call after the take-back').to.have.length(4);
      expect(reports).to.deep.equal([]);
    });

    it('gives up a call still waiting for its answer, and a wait between attempts, once its signal aborts', async () => {
      // A call whose answer does not come: only the abort ends it.
      const stalled = new AbortController();
      let asked!: () => void;
      const askedNow = new Promise<void>((resolve) => (asked = resolve));
      nock(api)
        .get('/repos/acme/app')
        .reply(() => {
          asked();
          return new Promise<never>(() => undefined) as never;
        });
      const hung = make([]).run(contractJob('x'), async () => undefined, stalled.signal);
      await askedNow;
      stalled.abort(new Error('taken back'));
      expect(await hung.catch((e: Error) => e)).to.be.instanceOf(Error);
      // A 503 whose wait before the next attempt does not end by itself: the abort ends it, and no second attempt is made.
      nock.cleanAll();
      const waiting = new AbortController();
      let waited!: () => void;
      const waitStarted = new Promise<void>((resolve) => (waited = resolve));
      const runner = new GithubActionsJobRunner(
        new GithubClient({
          token: 'ghp_test',
          repo: 'acme/app',
          apiUrl: api,
          sleep: () => {
            waited();
            return new Promise<void>(() => undefined);
          },
        }),
      );
      nock(api).get('/repos/acme/app').reply(503, { message: 'Service Unavailable' });
      const second = nock(api).get('/repos/acme/app').reply(200, { default_branch: 'main' });
      const run = runner.run(contractJob('x'), async () => undefined, waiting.signal);
      await waitStarted;
      waiting.abort(new Error('taken back'));
      expect(((await run.catch((e: Error) => e)) as Error).message).to.equal('taken back');
      expect(second.isDone(), 'no attempt after the abort').to.equal(false);
    });

    it('clears the timer of its wait between attempts once its signal aborts: none is left to hold a stop of the service', async () => {
      const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
      const client = new GithubClient({ token: 'ghp_test', repo: 'acme/app', apiUrl: api });
      nock(api).get('/repos/acme/app').reply(503, { message: 'Service Unavailable' }, { 'retry-after': '50' });
      const controller = new AbortController();
      const before = timers();
      const call = client.request('GET', '', undefined, { signal: controller.signal }).catch((e: Error) => e);
      // The call's own time limit (AbortSignal.timeout, unref'd) and the wait of 50 s before the next attempt.
      const during = await waitFor(() => (nock.isDone() && timers() >= before + 2 ? timers() : 0), 5_000, 'the wait before the next attempt');
      controller.abort(new Error('taken back'));
      expect(((await call) as Error).message).to.equal('taken back');
      expect(timers(), "the wait's timer cleared").to.equal(during - 1);
    });

    it('does not try a refusal again (a 404, a 401)', async () => {
      const waits: number[] = [];
      nock(api).get('/repos/acme/app').reply(404, { message: 'Not Found' });
      expect(((await hand(make(waits)).catch((e: Error) => e)) as Error).message).to.equal('GitHub GET /repos/acme/app answered 404: Not Found');
      expect(waits).to.deep.equal([]);
    });
  });
});

describe('GithubActionsJobRunner against a loopback fake of the GitHub API', () => {
  let github: FakeGithub;
  before(async () => {
    github = await startFakeGithub();
  });
  after(async () => github?.close());

  it("creates job/<id> in one push: a single ref creation, at a commit on the default branch's head that already holds job.md, and no commit after it", async () => {
    const runner = new GithubActionsJobRunner(new GithubClient({ token: FAKE_GITHUB_TOKEN, repo: 'acme/app', apiUrl: github.url }));
    const job = contractJob('Tidy the changelog');
    await runner.run(job, async () => undefined);
    const created = github.calls.filter((call) => call.method === 'POST' && call.path === '/repos/acme/app/git/refs');
    expect(created.map((call) => call.body.ref)).to.deep.equal([`refs/heads/${job.branch}`]);
    const commit = String(created[0].body.sha);
    // The workflow starts on the push that creates the branch: its commit must hold the job.
    expect(github.filesOf(commit)?.has(`logs/${job.id}/job.md`), 'job.md in the commit the branch is created at').to.equal(true);
    expect(github.filesOf(commit)?.get(`logs/${job.id}/job.md`))
      .to.contain('Tidy the changelog')
      .and.to.contain('gpt-test');
    expect(github.filesOf(commit)?.get('README.md'), "the default branch's files are kept").to.equal('# app\n');
    expect(github.commits.get(commit)?.parents).to.deep.equal([MAIN_SHA]);
    // No second push: the branch is still at that commit.
    expect(github.refs.get(`refs/heads/${job.branch}`)).to.equal(commit);
  });

  it('is handed over again without a second branch: the ref an earlier hand-over created stays where it was', async () => {
    const runner = new GithubActionsJobRunner(new GithubClient({ token: FAKE_GITHUB_TOKEN, repo: 'acme/app', apiUrl: github.url }));
    const job = contractJob('Twice');
    await runner.run(job, async () => undefined);
    const first = github.refs.get(`refs/heads/${job.branch}`);
    const reports: JobChange[] = [];
    await runner.run(job, async (change) => void reports.push(change));
    expect(reports.at(-1)?.summary).to.equal(`Handed to GitHub Actions on ${job.branch}`);
    expect(github.refs.get(`refs/heads/${job.branch}`)).to.equal(first);
    expect(github.filesOf(String(first))?.has(`logs/${job.id}/job.md`)).to.equal(true);
  });
});
