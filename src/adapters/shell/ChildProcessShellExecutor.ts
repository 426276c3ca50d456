import { spawn } from 'node:child_process';
import type { ShellExecutor, ShellOptions, ShellRun } from '../../ports/ShellExecutor.js';

/** `/bin/sh -c` in a process group of its own, so a timeout kills everything the command started. */
export class ChildProcessShellExecutor implements ShellExecutor {
  constructor(private readonly outputLimit: number = 64 * 1024) {}

  run(command: string, options: ShellOptions): Promise<ShellRun> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', command], { cwd: options.cwd, env: options.env ?? process.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      let timedOut = false;
      let aborted = false;
      const collect = (chunk: Buffer): void => {
        if (output.length < this.outputLimit) output += chunk.toString('utf8').slice(0, this.outputLimit - output.length);
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      const killGroup = (): void => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, options.timeoutMs);
      const onAbort = (): void => {
        aborted = true;
        killGroup();
      };
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener('abort', onAbort, { once: true });
      const done = (): void => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      };
      child.once('error', (error) => {
        done();
        reject(error);
      });
      child.once('close', (code) => {
        done();
        const killed = timedOut || aborted;
        resolve({ exitCode: killed ? null : code, timedOut, aborted, durationMs: Math.round(performance.now() - started), output });
      });
    });
  }
}
