import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const ROOT = resolve(import.meta.dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'main.js');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

export const tempDir = (prefix: string): Promise<string> => mkdtemp(join(tmpdir(), `agw-${prefix}-`));

/** A gateway started the way the README starts it (`node dist/main.js`), on a free port. */
export interface GatewayProcess {
  readonly url: string;
  readonly port: number;
  readonly env: Record<string, string>;
  /** Every log line the process wrote (stdout and stderr), parsed when JSON. */
  readonly logs: Array<Record<string, unknown> | string>;
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: no shutdown at all. */
  kill(): Promise<void>;
}

const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((done) => child.once('exit', (code) => done(code)));

export const startGateway = async (env: Record<string, string>): Promise<GatewayProcess> => {
  const fullEnv: Record<string, string> = { LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...env };
  const child = spawn(process.execPath, [MAIN], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...fullEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  // A gateway must not outlive the test run: not when its start times out, nor when mocha
  // exits (--exit) while a hook is still waiting for it.
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const logs: GatewayProcess['logs'] = [];
  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => {
      // Not left running: nobody else holds it to stop it.
      child.kill('SIGKILL');
      reject(new Error(`gateway did not start in time:\n${logs.map((l) => JSON.stringify(l)).join('\n')}`));
    }, 60_000);
    const onLine = (line: string): void => {
      let entry: Record<string, unknown> | string = line;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        // plain text line
      }
      logs.push(entry);
      if (typeof entry === 'object' && entry.msg === 'agent gateway listening') {
        clearTimeout(timer);
        resolvePort(entry.port as number);
      }
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', onLine);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${logs.map((l) => JSON.stringify(l)).join('\n')}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    env: fullEnv,
    logs,
    stop: async () => {
      child.kill('SIGTERM');
      return exited(child);
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited(child);
    },
  };
};

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `agent-gateway …` (the built CLI) with the given environment. */
export const runCli = (args: string[], env: Record<string, string>): Promise<CliResult> =>
  new Promise((done, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => done({ code, stdout, stderr }));
  });
