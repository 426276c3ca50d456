import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jobFile } from '../../../src/adapters/codehost/github-actions-job-runner.js';
import { contractJob } from '../../contract/job-runner.contract.js';
import { ROOT, tempDir } from '../../support/gateway-process.js';

/*
 * The workflow template operators copy (docs/templates/agent-job.yml) against a job whose
 * prompt carries a third party's text: its steps' scripts run in bash here, as Actions runs
 * them, on the job.md the gateway writes.
 */
const TEMPLATE = join(ROOT, 'docs', 'templates', 'agent-job.yml');

/** Each step's name and `run:` script, read from the template's indentation. */
const steps = async (): Promise<Array<{ name: string; run: string }>> => {
  const lines = (await readFile(TEMPLATE, 'utf8')).split('\n');
  const found: Array<{ name: string; run: string }> = [];
  let name = '';
  for (let i = 0; i < lines.length; i++) {
    const step = /^\s+- name: (.+)$/.exec(lines[i]);
    if (step) name = step[1];
    const run = /^(\s+)run: \|$/.exec(lines[i]);
    if (!run) continue;
    const body: string[] = [];
    while (i + 1 < lines.length && (lines[i + 1].trim() === '' || lines[i + 1].startsWith(`${run[1]}  `))) body.push(lines[++i].slice(run[1].length + 2));
    found.push({ name, run: body.join('\n') });
  }
  return found;
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
});
