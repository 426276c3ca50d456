import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ENTRIES, ROOT, TEST_NODE_FLAGS, runCli, tempDir } from '../support/gateway-process.js';

/*
 * A command's output read through a pipe by a reader that starts late (`… | (sleep 1; wc -c)`,
 * a script's pipeline on a busy machine) arrives whole: the CLI used to end with process.exit
 * right after its last write, which dropped what the pipe had not taken yet (everything past
 * its 64 KiB).
 */
describe('e2e: the CLI’s output through a pipe whose reader is slow', function () {
  this.timeout(60_000);

  it('arrives whole (triggers check of a file with 3 000 triggers: over 200 KB)', async () => {
    const dir = await tempDir('cli-pipe');
    const triggersFile = join(dir, 'TRIGGERS.json');
    const triggers = Array.from({ length: 3000 }, (_, i) => ({
      name: `trigger-${i}-${'x'.repeat(40)}`,
      watch_path: '/webhook',
      enabled: true,
      actions: [{ type: 'webhook', url: `https://example.com/${'y'.repeat(30)}` }],
    }));
    await writeFile(triggersFile, JSON.stringify(triggers));
    const env = { DATA_DIR: join(dir, 'data'), TRIGGERS_FILE: triggersFile };
    // The whole output, read as it comes.
    const direct = await runCli(['triggers', 'check'], env);
    expect(direct.code, direct.stderr).to.equal(0);
    expect(direct.stdout.length).to.be.greaterThan(200_000);
    // The same through a shell pipeline whose reader starts one second later.
    const command = [process.execPath, ...TEST_NODE_FLAGS, ENTRIES.cli, 'triggers', 'check'].map((word) => `'${word}'`).join(' ');
    const shell = spawn('sh', ['-c', `${command} 2>/dev/null | (sleep 1; cat)`], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, detached: true });
    let piped: { code: number | null; output: string };
    try {
      piped = await new Promise((done, reject) => {
        let output = '';
        shell.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        shell.once('error', reject);
        shell.once('close', (code) => done({ code, output }));
      });
    } finally {
      // The pipeline's processes (its own group) do not outlive a test that failed or timed out.
      if (shell.exitCode === null && shell.pid !== undefined) process.kill(-shell.pid, 'SIGKILL');
    }
    expect(piped.code).to.equal(0);
    expect(piped.output.length, 'bytes through the pipe').to.equal(direct.stdout.length);
    expect(piped.output).to.equal(direct.stdout);
  });
});
