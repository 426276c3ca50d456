import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ShellExecutor } from '../../src/ports/ShellExecutor.js';
import { tempDir } from '../support/gatewayProcess.js';

/** The behaviour every ShellExecutor adapter must have. */
export const describeShellExecutorContract = (name: string, make: () => ShellExecutor): void => {
  describe(`ShellExecutor contract: ${name}`, () => {
    let shell: ShellExecutor;
    let cwd: string;
    beforeEach(async () => {
      shell = make();
      cwd = await tempDir('shell');
    });

    it('runs the command line with /bin/sh in the given directory', async () => {
      const run = await shell.run('echo "$0" > which.txt && pwd', { cwd, timeoutMs: 5000 });
      expect(run).to.include({ exitCode: 0, timedOut: false });
      expect(run.output.trim()).to.equal(cwd);
      expect((await readFile(join(cwd, 'which.txt'), 'utf8')).trim()).to.equal('/bin/sh');
    });

    it('reports a failing exit code without throwing, with stdout and stderr', async () => {
      const run = await shell.run('echo out; echo err >&2; exit 7', { cwd, timeoutMs: 5000 });
      expect(run.exitCode).to.equal(7);
      expect(run.output).to.contain('out').and.to.contain('err');
    });

    it('kills a command and what it started at the timeout', async () => {
      const started = Date.now();
      const run = await shell.run('sleep 30 & sleep 30; echo never > late.txt', { cwd, timeoutMs: 300 });
      expect(run).to.include({ timedOut: true, exitCode: null });
      expect(Date.now() - started).to.be.below(5000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const late = await readFile(join(cwd, 'late.txt'), 'utf8').catch(() => 'absent');
      expect(late).to.equal('absent');
    });

    it('bounds the output it keeps', async () => {
      const run = await shell.run('head -c 200000 /dev/zero | tr "\\0" a', { cwd, timeoutMs: 5000 });
      expect(run.exitCode).to.equal(0);
      expect(run.output.length).to.be.at.most(64 * 1024);
    });
  });
};
