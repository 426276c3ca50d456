import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const ROOT = resolve(import.meta.dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'main.js');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
/**
 * Node flags of every built gateway and CLI process the tests start. `--liftoff-only` keeps V8
 * from recompiling the embedded database's hot WebAssembly functions with its optimizing
 * compiler: about 1.4 s of CPU per process start on the 2-core machine, which the tests' short
 * lives never win back (measured: 3.8 s → 2.1 s of CPU from start to the first 200 and stop).
 * `--max-opt=1` does the same for JavaScript (its baseline compiler, no optimizing tiers) and
 * `--single-threaded` runs V8's compile and collection work on the thread that needs it instead
 * of helper threads, which on two busy cores only compete with the test run's other processes:
 * a gateway's test-like life (start, 600 requests, stop) 1.77 → 1.54 s of CPU, `keys list`
 * 0.76 → 0.62 s (medians of 4–5 alternating processes; bench/README.md, "Test suite cost").
 * They change how code is compiled and collected, never what it does.
 */
export const TEST_NODE_FLAGS: readonly string[] = ['--liftoff-only', '--max-opt=1', '--single-threaded'];

// Temporary directories: removed after the test file that made them (mocha root hook, see
// setup.ts), templates made once per test process when it exits. A suite run leaves nothing in
// the system's temporary directory (each embedded database is ~40 MB; kept, a few runs fill a disk).
const madeForFile = new Set<string>();
const madeForProcess = new Set<string>();

/** A new temporary directory, removed once the current test file has run. */
export const tempDir = async (prefix: string): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), `agw-${prefix}-`));
  madeForFile.add(dir);
  return dir;
};

/** A new temporary directory kept until the test process exits: for templates that later files copy. */
export const processTempDir = async (prefix: string): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), `agw-${prefix}-`));
  madeForProcess.add(dir);
  return dir;
};

/** Removes the directories `tempDir` made since the last call (a process still writing in one may leave it behind). */
export const removeTempDirs = async (): Promise<void> => {
  const dirs = [...madeForFile];
  madeForFile.clear();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined)));
};

// ---------------------------------------------------------------------------------------------
// Every child process spawned here (gateways and CLI runs) is tracked until it exits, so that
// none outlives the test run: a suite whose setup failed or timed out may never reach the line
// that stops its gateway. `killSurvivors` runs after the whole run (mocha root hook, see
// setup.ts), when the test process exits and when it is ended by SIGTERM or SIGHUP.

const running = new Set<ChildProcess>();

const track = <T extends ChildProcess>(child: T): T => {
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.once('error', () => running.delete(child));
  return child;
};

/** The tracked children still running (pid and command line). */
export const survivors = (): Array<{ pid: number | undefined; command: string }> =>
  [...running].map((child) => ({ pid: child.pid, command: child.spawnargs.join(' ') }));

/** SIGKILLs every tracked child still running; returns how many there were. Synchronous, so it also works in an `exit` handler. */
export const killSurvivors = (): number => {
  const left = [...running];
  for (const child of left) child.kill('SIGKILL');
  return left.length;
};

process.once('exit', () => {
  killSurvivors();
  for (const dir of [...madeForFile, ...madeForProcess]) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // left behind: the process is ending either way
    }
  }
});
// A test run ended by a signal (a CI time limit, a closed terminal) emits no `exit`: kill the
// children, then let the signal do what it would have done.
for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    killSurvivors();
    process.kill(process.pid, signal);
  });
}

/** A gateway started the way the README starts it (`node dist/main.js`), on a free port. */
export interface GatewayProcess {
  readonly url: string;
  readonly port: number;
  /** The process id (to send it signals, e.g. SIGHUP). */
  readonly pid: number;
  readonly env: Record<string, string>;
  /** Every log line the process wrote (stdout and stderr), parsed when JSON. */
  readonly logs: Array<Record<string, unknown> | string>;
  /**
   * The first JSON log line that `matches`, once the process has written it: a line is read from
   * the process's stdout after the HTTP answer it belongs to may already have arrived. Fails,
   * naming `what`, after `ms` (default 10 s).
   */
  logLine(matches: (line: Record<string, unknown>) => boolean, what: string, ms?: number): Promise<Record<string, unknown>>;
  /**
   * SIGTERM and wait for exit; returns the exit code. A gateway still running after `ms`
   * (default 60 s: longer than any grace period the tests set) is killed and the promise
   * rejects with its last log lines, so a shutdown that hangs names the step it hung on.
   */
  stop(ms?: number): Promise<number | null>;
  /** SIGKILL: no shutdown at all. */
  kill(): Promise<void>;
}

/** A line a process wrote: parsed when it is JSON (a log line), else its text. */
export type OutputLine = Record<string, unknown> | string;

/** Calls `onLine` with each line the child writes on stdout and stderr, parsed when it is JSON. */
const readLines = (child: ChildProcess, onLine: (line: OutputLine) => void): void => {
  const read = (text: string): void => {
    let line: OutputLine = text;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // plain text line
    }
    onLine(line);
  };
  createInterface({ input: child.stdout! }).on('line', read);
  createInterface({ input: child.stderr! }).on('line', read);
};

const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve(child.exitCode) : new Promise((done) => child.once('exit', (code) => done(code)));

export interface StartOptions {
  /** How long the gateway may take to log that it listens; then it is killed (default 60 s). */
  readonly startTimeoutMs?: number;
}

/** Thrown by startGateway when the gateway did not start; `pid` names the process (killed by then). */
export class GatewayStartFailure extends Error {
  constructor(
    message: string,
    readonly pid: number | undefined,
  ) {
    super(message);
    this.name = 'GatewayStartFailure';
  }
}

export const startGateway = async (env: Record<string, string>, options: StartOptions = {}): Promise<GatewayProcess> => {
  const fullEnv: Record<string, string> = { LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...env };
  const child = track(
    spawn(process.execPath, [...TEST_NODE_FLAGS, MAIN], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...fullEnv }, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  const logs: GatewayProcess['logs'] = [];
  /** Told of every line as it is read (GatewayProcess.logLine). */
  const lineWaiters = new Set<(line: Record<string, unknown> | string) => void>();
  const port = await new Promise<number>((resolvePort, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      // Killed before the promise rejects: a caller whose setup fails here has no handle to stop it.
      timedOut = true;
      child.kill('SIGKILL');
    }, options.startTimeoutMs ?? 60_000);
    readLines(child, (entry) => {
      logs.push(entry);
      for (const waiter of lineWaiters) waiter(entry);
      if (typeof entry === 'object' && entry.msg === 'agent gateway listening') {
        clearTimeout(timer);
        resolvePort(entry.port as number);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      const what = timedOut ? `did not start in time (killed after ${options.startTimeoutMs ?? 60_000} ms)` : `exited with ${code}`;
      reject(new GatewayStartFailure(`gateway ${what}:\n${logs.map((l) => JSON.stringify(l)).join('\n')}`, child.pid));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid as number,
    env: fullEnv,
    logs,
    logLine: (matches, what, ms = 10_000) => {
      const isMatch = (line: Record<string, unknown> | string): line is Record<string, unknown> => typeof line === 'object' && matches(line);
      const found = logs.find(isMatch);
      if (found !== undefined) return Promise.resolve(found);
      // Settled by the line itself as it is read; the timer only bounds a line that never comes.
      return new Promise((resolve, reject) => {
        const waiter = (line: Record<string, unknown> | string): void => {
          if (!isMatch(line)) return;
          clearTimeout(timer);
          lineWaiters.delete(waiter);
          resolve(line);
        };
        const timer = setTimeout(() => {
          lineWaiters.delete(waiter);
          reject(new Error(`timed out after ${ms} ms waiting for the log line ${what}`));
        }, ms);
        lineWaiters.add(waiter);
      });
    },
    stop: async (ms = 60_000) => {
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const overdue = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          const last = logs.slice(-20).map((line) => (typeof line === 'string' ? line : JSON.stringify(line)));
          reject(new Error(`gateway ${child.pid} still running ${ms} ms after SIGTERM (killed); its last log lines:\n${last.join('\n')}`));
        }, ms);
      });
      try {
        return await Promise.race([exited(child), overdue]);
      } finally {
        clearTimeout(timer);
      }
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

/** Runs `agent-gateway …` (the built CLI) with the given environment; `input` is piped to its stdin (none: no stdin). */
export const runCli = (args: string[], env: Record<string, string>, options: { readonly input?: string } = {}): Promise<CliResult> =>
  new Promise((done, reject) => {
    const child = track(
      spawn(process.execPath, [...TEST_NODE_FLAGS, CLI, ...args], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      }),
    );
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => done({ code, stdout, stderr }));
    if (options.input !== undefined) child.stdin!.end(options.input);
  });

/** One exchange on a terminal: when the output so far contains `after`, `type` is typed. */
export interface TerminalStep {
  readonly after: string;
  readonly type: string;
}

/** What a terminal showed (stdout and stderr together, with the terminal's \r\n line ends) and the exit code. */
export interface TerminalResult {
  readonly code: number | null;
  readonly screen: string;
}

/**
 * Runs `agent-gateway …` on a pseudo-terminal (util-linux `script`, which passes its exit code
 * on), typing each step's text once its prompt shows. Killed, and rejected, after `timeoutMs`.
 */
export const runCliOnTerminal = (args: string[], env: Record<string, string>, steps: readonly TerminalStep[], timeoutMs = 45_000): Promise<TerminalResult> =>
  new Promise((done, reject) => {
    // The command line is built for script's shell from fixed parts; arguments are quoted.
    const quoted = [process.execPath, ...TEST_NODE_FLAGS, CLI, ...args].map((part) => `'${part.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = track(
      spawn('script', ['-qefc', quoted, '/dev/null'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] }),
    );
    let screen = '';
    let next = 0;
    const onOutput = (chunk: Buffer): void => {
      screen += chunk.toString();
      while (next < steps.length && screen.includes(steps[next].after, next === 0 ? 0 : screen.indexOf(steps[next - 1].after) + 1)) {
        child.stdin!.write(steps[next].type);
        next++;
      }
    };
    child.stdout!.on('data', onOutput);
    child.stderr!.on('data', onOutput);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the CLI on a terminal was still running after ${timeoutMs} ms (killed); screen:\n${screen}`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      done({ code, screen });
    });
  });

export interface ExitedProcess {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** From spawn to exit. */
  readonly ms: number;
}

export interface RunOptions {
  /** The Node.js binary (default: the one running the tests). */
  readonly node?: string;
  /** Options before the entry, e.g. `--import` of a file that changes `process.versions`. */
  readonly nodeArgs?: readonly string[];
  /** Longest wait for the exit; then the process is killed and the promise rejects. Default 45 s (a new embedded database takes a while on a busy machine). */
  readonly timeoutMs?: number;
  /** Told of the process as soon as it is spawned (to send it a signal while it runs). */
  readonly onSpawn?: (child: ChildProcess) => void;
  /** The account (uid, and the same number as its group) to run as: the tests must run as root for this. */
  readonly asAccount?: number;
}

/** The built entries: `node dist/main.js` (the service) and `dist/cli/main.js` (the CLI). */
export const ENTRIES = { service: MAIN, cli: CLI } as const;

/**
 * Runs a built entry that is expected to end by itself, and resolves when it has exited.
 * One still running after `timeoutMs` is killed and the promise rejects.
 */
export const runToExit = (
  entry: keyof typeof ENTRIES,
  args: readonly string[],
  env: Record<string, string>,
  options: RunOptions = {},
): Promise<ExitedProcess> =>
  new Promise((done, reject) => {
    const started = performance.now();
    const timeoutMs = options.timeoutMs ?? 45_000;
    const child = track(
      spawn(options.node ?? process.execPath, [...(options.node === undefined ? TEST_NODE_FLAGS : []), ...(options.nodeArgs ?? []), ENTRIES[entry], ...args], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(options.asAccount !== undefined ? { uid: options.asAccount, gid: options.asAccount } : {}),
      }),
    );
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    options.onSpawn?.(child);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} was still running after ${timeoutMs} ms (killed); stderr:\n${stderr}\nstdout:\n${stdout}`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr, ms: performance.now() - started });
    });
  });

/**
 * Starts the built gateway (`node dist/main.js`, same defaults as startGateway) expecting it
 * to refuse to start; resolves once it has exited, rejects (after killing it) if it is still
 * running after the timeout — the failure it was meant to show did not stop it.
 */
export const startGatewayExpectingExit = (env: Record<string, string>, options: RunOptions = {}): Promise<ExitedProcess> =>
  runToExit('service', [], { LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...env }, options);

/** Whether no process has the id `pid` any more (kill -0 answers ESRCH). */
export const processGone = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
};

/** The service started by an npm command (`npm run start`, `npx agent-gateway serve`), as docs/first-hour.md starts it. */
export interface NpmStartedService {
  /** The npm (or npx) process: the leader of a process group of its own. */
  readonly npm: ChildProcess;
  /** Every line written on stdout and stderr (npm's and the service's), parsed when JSON. */
  readonly lines: OutputLine[];
  /** The first log line whose `msg` is `msg`, if written yet. */
  logged(msg: string): Record<string, unknown> | undefined;
  /** Every line so far, for failure messages. */
  what(): string;
  /** Resolves with npm's exit code once it has exited. */
  exited(): Promise<number | null>;
  /** SIGKILLs the whole process group: whatever npm started, re-parented or not. For afterEach. */
  killGroup(): void;
}

/**
 * Runs `command args` (npm or npx, from the repository) detached, in a process group of its own,
 * with a service environment on the data directory `dir` (no triggers file, a free port on
 * 127.0.0.1, info logs) and the caller's PATH and HOME.
 */
export const startUnderNpm = (command: 'npm' | 'npx', args: readonly string[], dir: string): NpmStartedService => {
  const npm = track(
    spawn(command, args, {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? dir,
        DATA_DIR: dir,
        TRIGGERS_FILE: join(dir, 'none.json'),
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    }),
  );
  const lines: OutputLine[] = [];
  readLines(npm, (line) => lines.push(line));
  return {
    npm,
    lines,
    logged: (msg) => lines.find((line): line is Record<string, unknown> => typeof line === 'object' && line.msg === msg),
    what: () => lines.map((line) => JSON.stringify(line)).join('\n'),
    exited: () => exited(npm),
    killGroup: () => {
      if (npm.pid === undefined) return;
      try {
        process.kill(-npm.pid, 'SIGKILL');
      } catch {
        // the group has ended
      }
    },
  };
};
