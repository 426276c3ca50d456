import { spawn } from 'node:child_process';
import type { ShellExecutor, ShellRun } from '../../ports/ShellExecutor.js';

/** `/bin/sh -c` in a process group of its own, so a timeout kills everything the command started. */
export class ChildProcessShellExecutor implements ShellExecutor {
  constructor(private readonly outputLimit: number = 64 * 1024) {}

  run(command: string, options: { readonly cwd: string; readonly timeoutMs: number }): Promise<ShellRun> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', command], { cwd: options.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      let timedOut = false;
      const collect = (chunk: Buffer): void => {
        if (output.length < this.outputLimit) output += chunk.toString('utf8').slice(0, this.outputLimit - output.length);
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }, options.timeoutMs);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ exitCode: timedOut ? null : code, timedOut, durationMs: Math.round(performance.now() - started), output });
      });
    });
  }
}
