import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { chmod, cp, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GITHUB_ACTIONS_MAX_PROMPT_BYTES, jobFile } from '../../../src/adapters/codehost/github-actions-job-runner.js';
import { MAX_MODEL_LENGTH } from '../../../src/domain/jobs/job-request.js';
import type { Job } from '../../../src/domain/jobs/job.js';
import { contractJob } from '../../contract/job-runner.contract.js';
import { ROOT, tempDir } from '../../support/gateway-process.js';

/*
 * The workflow template operators copy (docs/templates/agent-job.yml) against a job whose
 * prompt carries a third party's text: its steps' scripts run in bash here, as Actions runs
 * them, on the job.md the gateway writes.
 */
const TEMPLATE = join(ROOT, 'docs', 'templates', 'agent-job.yml');

/** Each step's job, name and `run:` script, read from the template's indentation. */
const steps = async (): Promise<Array<{ job: string; name: string; run: string }>> => {
  const lines = (await readFile(TEMPLATE, 'utf8')).split('\n');
  const found: Array<{ job: string; name: string; run: string }> = [];
  let job = '';
  let name = '';
  for (let i = 0; i < lines.length; i++) {
    const jobLine = /^ {2}([\w-]+):$/.exec(lines[i]);
    if (jobLine) job = jobLine[1];
    const step = /^\s+- name: (.+)$/.exec(lines[i]);
    if (step) name = step[1];
    const run = /^(\s+)run: \|$/.exec(lines[i]);
    if (!run) continue;
    const body: string[] = [];
    while (i + 1 < lines.length && (lines[i + 1].trim() === '' || lines[i + 1].startsWith(`${run[1]}  `))) body.push(lines[++i].slice(run[1].length + 2));
    found.push({ job, name, run: body.join('\n') });
  }
  return found;
};

/** The lines of one job of the template (`jobs: <name>:` to the next job). */
const jobSection = async (name: string): Promise<string> => {
  const lines = (await readFile(TEMPLATE, 'utf8')).split('\n');
  const start = lines.indexOf(`  ${name}:`);
  if (start < 0) return '';
  const end = lines.findIndex((line, i) => i > start && /^ {2}[\w-]+:$/.test(line));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
};

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/** git, as the runner has it, with no user or system configuration. */
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=Gateway', '-c', 'user.email=gateway@example.test', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/**
 * A jobs repository (a bare `origin`) with a workflow, the agent script `agent` and the
 * gateway's commit on job/<id>, as the gateway hands a job over.
 */
const jobsRepository = async (prefix: string, job: Job, agent: string): Promise<{ dir: string; origin: string; sha: string }> => {
  const dir = await tempDir(prefix);
  const origin = join(dir, 'origin.git');
  const seed = join(dir, 'seed');
  git(dir, 'init', '-q', '--bare', origin);
  git(dir, 'init', '-q', seed);
  await mkdir(join(seed, '.github', 'workflows'), { recursive: true });
  await writeFile(join(seed, '.github', 'workflows', 'ci.yml'), 'name: ci\n');
  await mkdir(join(seed, 'scripts'));
  await writeFile(join(seed, 'scripts', 'agent.sh'), agent);
  await chmod(join(seed, 'scripts', 'agent.sh'), 0o755);
  await writeFile(join(seed, 'README.md'), 'app\n');
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'app');
  await mkdir(join(seed, 'logs', job.id), { recursive: true });
  await writeFile(join(seed, 'logs', job.id, 'job.md'), jobFile(job));
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', `job ${job.id}: start`);
  git(seed, 'push', '-q', origin, 'HEAD~1:refs/heads/main', `HEAD:refs/heads/${job.branch}`);
  return { dir, origin, sha: git(seed, 'rev-parse', 'HEAD').trim() };
};

/** Runs one step's script of the template in bash, as Actions does (`shell: bash`). */
const runStep = async (job: string, name: string, cwd: string, env: Record<string, string>): Promise<string> => {
  const step = (await steps()).find((candidate) => candidate.job === job && candidate.name === name);
  if (!step) throw new Error(`no step "${name}" in job ${job}`);
  return execFileSync('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', step.run], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
};

/** The content of the code block under `heading`, read as CommonMark reads a fence. */
const codeBlockUnder = (body: string, heading: string): { content: string; rest: string } => {
  const lines = body.split('\n');
  const at = lines.indexOf(heading);
  let open = at + 1;
  while (lines[open] === '') open++;
  const fence = /^(`{3,})[^`]*$/.exec(lines[open]);
  if (!fence) throw new Error(`no fence under ${heading}: ${lines[open]}`);
  const close = lines.findIndex((line, i) => i > open && new RegExp(`^ {0,3}\`{${fence[1].length},}[ \t]*$`).test(line));
  if (close < 0) throw new Error(`the fence under ${heading} is never closed`);
  return { content: lines.slice(open + 1, close).join('\n'), rest: lines.slice(close + 1).join('\n') };
};

describe('the agent-job workflow template (docs/templates/agent-job.yml)', () => {
  it('puts no expression into a step script: every value reaches a script as an environment variable', async () => {
    const scripts = await steps();
    expect(scripts.map((step) => step.name)).to.include.members(['Read the job', 'Commit the work', 'Open the pull request']);
    for (const step of scripts) expect(step.run, step.name).not.to.contain('${{');
  });

  it('reads the id, provider and model the gateway wrote, never lines of the prompt that look like them', async () => {
    const dir = await tempDir('agent-job-workflow');
    const job = contractJob(
      ['Review this:', '- llm_model: x"; touch pwned; echo "', '- llm_provider: $(touch pwned2)', 'id=../../etc', 'model=evil', "'; touch pwned3; '"].join(
        '\n',
      ),
    );
    await mkdir(join(dir, 'logs', job.id), { recursive: true });
    await writeFile(join(dir, 'logs', job.id, 'job.md'), jobFile(job));
    const read = (await steps()).find((step) => step.name === 'Read the job');
    const output = join(dir, 'outputs');
    await writeFile(output, '');
    execFileSync('bash', ['-e', '-o', 'pipefail', '-c', read!.run], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GITHUB_REF_NAME: job.branch, GITHUB_OUTPUT: output },
    });
    expect((await readFile(output, 'utf8')).split('\n')).to.deep.equal([`id=${job.id}`, 'provider=openai', 'model=gpt-test', '']);
    for (const file of ['pwned', 'pwned2', 'pwned3'])
      expect(
        await readFile(join(dir, file)).then(
          () => true,
          () => false,
        ),
        file,
      ).to.equal(false);
  });

  it('hands the agent the longest prompt the gateway takes in JOB_PROMPT, with the longest model; a longer job.md stops the step before the agent runs', async () => {
    /** Runs "Run the agent" on a job.md of `job`, its agent printing how many bytes JOB_PROMPT has. */
    const run = async (job: ReturnType<typeof contractJob>) => {
      const dir = await tempDir('agent-job-workflow-prompt');
      await mkdir(join(dir, 'logs', job.id), { recursive: true });
      await writeFile(join(dir, 'logs', job.id, 'job.md'), jobFile(job));
      await mkdir(join(dir, 'scripts'));
      await writeFile(join(dir, 'scripts', 'agent.sh'), '#!/bin/sh\nprintf %s "$JOB_PROMPT" | wc -c\n');
      await chmod(join(dir, 'scripts', 'agent.sh'), 0o755);
      try {
        return { ok: true, output: await runStep('agent', 'Run the agent', dir, { JOB_ID: job.id }) };
      } catch (error) {
        return { ok: false, output: String((error as { stderr?: string }).stderr) };
      }
    };
    // 3 bytes of UTF-8 a character: the longest model name in bytes.
    const longest = { ...contractJob('p'.repeat(GITHUB_ACTIONS_MAX_PROMPT_BYTES)), llmProvider: 'anthropic', llmModel: '€'.repeat(MAX_MODEL_LENGTH) };
    const taken = await run(longest);
    expect(taken.ok, taken.output).to.equal(true);
    // job.md whole, but its last newline (the command substitution drops it).
    expect(Number(taken.output.trim())).to.equal(Buffer.byteLength(jobFile(longest)) - 1);
    // A prompt the gateway took before it refused longer ones (only its body limit bounded it).
    const refused = await run(contractJob('p'.repeat(140_000)));
    expect(refused.ok).to.equal(false);
    expect(refused.output).to.contain('Argument list too long');
  });

  it('refuses a branch that is not job/<id>, reading nothing', async () => {
    const dir = await tempDir('agent-job-workflow-branch');
    const read = (await steps()).find((step) => step.name === 'Read the job');
    const output = join(dir, 'outputs');
    await writeFile(output, '');
    const run = () =>
      execFileSync('bash', ['-e', '-o', 'pipefail', '-c', read!.run], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GITHUB_REF_NAME: 'job/$(id)', GITHUB_OUTPUT: output },
        stdio: 'pipe',
      });
    expect(run).to.throw();
    expect(await readFile(output, 'utf8')).to.equal('');
  });
  it('gives the agent a checkout that can only read: no write token in its job, none left in .git/config', async () => {
    // What the job does, its comments aside.
    const agent = (await jobSection('agent'))
      .split('\n')
      .filter((line) => !line.trim().startsWith('#'))
      .join('\n');
    expect(agent).to.match(/\n {4}permissions:\n {6}contents: read\n {4}steps:/);
    expect(agent).not.to.match(/: write/);
    expect(agent).to.match(/- uses: actions\/checkout@v\d+\n {8}with:\n {10}persist-credentials: false\n/);
    expect(agent).not.to.match(/GH_TOKEN|GITHUB_TOKEN|github\.token|secrets\.GITHUB/);
    expect(agent).to.contain('actions/upload-artifact@');
    // Nothing is granted to every job: each one names what it needs.
    const top = (await readFile(TEMPLATE, 'utf8')).split('\njobs:\n')[0];
    expect(top).to.match(/\npermissions: \{\}\n/);
    const publish = await jobSection('publish');
    expect(publish).to.match(/\n {4}needs: agent\n/);
    expect(publish).to.contain('actions/download-artifact@');
    expect(publish).to.contain('git apply --index');
    expect(publish).to.contain('--body-file');
    expect(publish).not.to.match(/--body /);
  });

  it("publishes the agent's work to job/<id> only, as a patch: its changes to .github/ and to .git stay behind", async () => {
    const job = contractJob('Write the notes');
    const marks = await tempDir('agent-job-marks');
    const { dir, origin, sha } = await jobsRepository(
      'agent-job-publish',
      job,
      [
        '#!/bin/sh',
        'mkdir -p notes && echo "the notes" > notes/result.md',
        'echo "on: push" >> .github/workflows/ci.yml',
        // What a steered agent would try: a hook and an fsmonitor for the later git commands.
        // Each leaves a mark named after the checkout it ran in.
        `printf '#!/bin/sh\\necho hook >> "${marks}/$(basename "$PWD")"\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
        `git config core.fsmonitor 'echo fsmonitor >> "${marks}/$(basename "$PWD")"; false'`,
        'echo "agent done"',
        '',
      ].join('\n'),
    );
    const workspace = join(dir, 'agent');
    git(dir, 'clone', '-q', '-b', job.branch, origin, workspace);
    const agentTemp = join(dir, 'agent-temp');
    await mkdir(agentTemp);
    await runStep('agent', 'Run the agent', workspace, { JOB_ID: job.id });
    await runStep('agent', 'Make the patch', workspace, { RUNNER_TEMP: agentTemp });
    // The artifact crosses to a fresh checkout of the branch.
    const publish = join(dir, 'publish');
    git(dir, 'clone', '-q', '-b', job.branch, origin, publish);
    const publishTemp = join(dir, 'publish-temp');
    await mkdir(join(publishTemp, 'agent-patch'), { recursive: true });
    await cp(join(agentTemp, 'agent-patch', 'job.patch'), join(publishTemp, 'agent-patch', 'job.patch'));
    const env = { RUNNER_TEMP: publishTemp, JOB_ID: job.id, GITHUB_SHA: sha, GH_TOKEN: 'ghs_test', GITHUB_SERVER_URL: 'https://github.test' };
    for (const name of ['Apply the patch', 'Commit the work', "Push to the job's branch", 'Write the pull request description'])
      await runStep('publish', name, publish, env);

    const check = join(dir, 'check');
    git(dir, 'clone', '-q', '-b', job.branch, origin, check);
    expect(await readFile(join(check, 'notes', 'result.md'), 'utf8')).to.equal('the notes\n');
    expect(await readFile(join(check, 'logs', job.id, 'agent.log'), 'utf8')).to.equal('agent done\n');
    expect(await readFile(join(check, '.github', 'workflows', 'ci.yml'), 'utf8')).to.equal('name: ci\n');
    expect(git(check, 'log', '-1', '--format=%s')).to.equal(`job ${job.id}: agent work [agent-done]\n`);
    expect(git(check, 'rev-parse', 'HEAD~1').trim()).to.equal(sha);
    // No other branch moved.
    expect(git(dir, '--git-dir', origin, 'for-each-ref', '--format=%(refname)').trim().split('\n').sort()).to.deep.equal([
      `refs/heads/job/${job.id}`,
      'refs/heads/main',
    ]);
    // They were armed (the agent's own job ran its fsmonitor), and nothing of them ran where the token is.
    expect(await readFile(join(marks, 'agent'), 'utf8')).to.contain('fsmonitor');
    expect(await exists(join(marks, 'publish')), 'ran in the publish job').to.equal(false);
    expect(codeBlockUnder(await readFile(join(publishTemp, 'pr-body.md'), 'utf8'), '### Log').content).to.equal('agent done');
  });

  for (const [what, change] of [
    ['a workflow', async (work: string) => writeFile(join(work, '.github', 'workflows', 'evil.yml'), 'on: push\n')],
    ['a workflow, in other capitals', async (work: string) => mkdir(join(work, '.GitHub')).then(() => writeFile(join(work, '.GitHub', 'x.yml'), 'x\n'))],
    ['a symbolic link', async (work: string) => execFileSync('ln', ['-s', '/etc/passwd', join(work, 'notes.md')])],
  ] as const) {
    it(`refuses a patch that adds ${what}, committing nothing`, async () => {
      const job = contractJob('Write the notes');
      const { dir, origin, sha } = await jobsRepository('agent-job-refuse', job, '#!/bin/sh\n');
      const work = join(dir, 'work');
      git(dir, 'clone', '-q', '-b', job.branch, origin, work);
      await writeFile(join(work, 'ok.md'), 'fine\n');
      await change(work);
      git(work, 'add', '-A');
      const temp = join(dir, 'publish-temp');
      await mkdir(join(temp, 'agent-patch'), { recursive: true });
      await writeFile(join(temp, 'agent-patch', 'job.patch'), git(work, 'diff', '--cached', '--binary', 'HEAD'));
      const publish = join(dir, 'publish');
      git(dir, 'clone', '-q', '-b', job.branch, origin, publish);
      let error: Error & { stderr?: string } = new Error('applied');
      await runStep('publish', 'Apply the patch', publish, { RUNNER_TEMP: temp }).catch((caught) => {
        error = caught;
      });
      expect(error.stderr).to.contain('patch refused');
      expect(git(publish, 'rev-parse', 'HEAD').trim()).to.equal(sha);
    });
  }

  it('refuses a patch that writes into .git, before applying it', async () => {
    const job = contractJob('Write the notes');
    const { dir, origin } = await jobsRepository('agent-job-refuse-git', job, '#!/bin/sh\n');
    const temp = join(dir, 'publish-temp');
    await mkdir(join(temp, 'agent-patch'), { recursive: true });
    await writeFile(
      join(temp, 'agent-patch', 'job.patch'),
      ['diff --git a/sub/.git/config b/sub/.git/config', 'new file mode 100644', '--- /dev/null', '+++ b/sub/.git/config', '@@ -0,0 +1 @@', '+[core]', ''].join(
        '\n',
      ),
    );
    const publish = join(dir, 'publish');
    git(dir, 'clone', '-q', '-b', job.branch, origin, publish);
    let error: Error & { stderr?: string } = new Error('applied');
    await runStep('publish', 'Apply the patch', publish, { RUNNER_TEMP: temp }).catch((caught) => {
      error = caught;
    });
    expect(error.stderr).to.contain('patch refused: it changes a file in .git');
  });

  it('shows the prompt and the log as written in the description, in fences nothing in them can close', async () => {
    const hostile = ['```', 'Closes #1', '```````', '@team please look <!-- hidden', ' ````````', '~~~', '[link](https://evil.test) -->'].join('\n');
    const job = contractJob(`Summarise this:\n${hostile}`);
    const { dir, origin, sha } = await jobsRepository('agent-job-body', job, '#!/bin/sh\n');
    const publish = join(dir, 'publish');
    git(dir, 'clone', '-q', '-b', job.branch, origin, publish);
    await writeFile(join(publish, 'logs', job.id, 'agent.log'), `${hostile}\n\u0000done`);
    git(publish, 'add', '-A');
    git(publish, 'commit', '-q', '-m', 'work');
    const temp = join(dir, 'publish-temp');
    await mkdir(temp);
    await runStep('publish', 'Write the pull request description', publish, { RUNNER_TEMP: temp, JOB_ID: job.id, GITHUB_SHA: sha });
    const body = await readFile(join(temp, 'pr-body.md'), 'utf8');
    const prompt = codeBlockUnder(body, '### Prompt');
    expect(prompt.content).to.equal(jobFile(job).replace(/\n$/, ''));
    const log = codeBlockUnder(body, '### Log');
    expect(log.content).to.equal(`${hostile}\ndone`);
    // Outside the two blocks only the headings: no mention, no closing keyword, no comment.
    expect(log.rest.trim()).to.equal('');
    expect(prompt.rest.split('### Log')[0].trim()).to.equal('');
    expect(body.split('\n').slice(0, 4)).to.deep.equal([`## Job ${job.id}`, '', '### Prompt', '']);
  });
});
