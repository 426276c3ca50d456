import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';

/** The stand-in server (starting-server-child.ts) as a test drives it. */
export interface StartingServer {
  readonly pid: number;
  /** What it said on stdout so far. */
  said(): string;
  /** Resolves once it has said `text` (rejects if it ends first). */
  saying(text: string): Promise<void>;
  /** Opens its admin socket, as a server does at the end of its start; resolves once it listens. */
  open(): Promise<void>;
  /** Has it open its admin socket, without waiting. */
  openSoon(): void;
  /** Ends it (its stdin closes: it closes its socket and releases the lock), killed if it lingers. */
  stop(): Promise<void>;
}

/**
 * Starts the stand-in server on `dataDir`; resolves once it holds the database's lock file (its
 * admin socket is not open yet: `open()`).
 */
export const startStandInServer = async (dataDir: string): Promise<StartingServer> => {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'starting-server-child.ts'), dataDir], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiting: Array<() => void> = [];
  const wake = (): void => {
    for (const resume of waiting.splice(0)) resume();
  };
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    wake();
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.once('exit', wake);
  const saying = async (text: string): Promise<void> => {
    while (!out.includes(text)) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the stand-in server ended: ${err}`);
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
  const server: StartingServer = {
    pid: child.pid as number,
    said: () => out,
    saying,
    openSoon: () => void child.stdin.write('open\n'),
    open: async () => {
      server.openSoon();
      await saying('listening\n');
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
  try {
    await saying('locked\n');
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return server;
};
