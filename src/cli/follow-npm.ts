import { readFileSync } from 'node:fs';

/**
 * Under `npx agent-gateway serve` (`npm exec`), the service stops when the process that started
 * it ends, as on SIGTERM. npx runs the command through `sh -c` and passes a SIGTERM or SIGINT it
 * gets on to that shell: the signal ended the shell, and the service, its child, went on serving,
 * re-parented, with no npm left to stop it (a supervisor stopping `npx …` left it running,
 * holding the port and the database). `npm start` needs none of this (its script runs the
 * service with `exec node`: the service gets the signal itself), and other npm scripts are not
 * followed: one that starts the service in the background (`nohup node dist/main.js &`) ends on
 * purpose while the service runs on. Neither is a service that left npm's process group
 * (`setsid`, a daemon). Looked at once a second; `process.ppid` asks the system each time.
 */
export interface FollowNpmOptions {
  /** The environment the service started in: npm sets `npm_command` (`exec` for npx) for what it runs. */
  readonly env?: NodeJS.ProcessEnv;
  readonly intervalMs?: number;
  /** The parent's pid now (default: `process.ppid`). */
  readonly parent?: () => number;
  /** Whether this process is in the process group of `pid` (default: from /proc; true where it cannot be read). */
  readonly inGroupOf?: (pid: number) => boolean;
  /** What to do once the parent ended (default: a SIGTERM to this process, handled by serve). */
  readonly stop?: (message: string) => void;
}

/** The process group of `pid` (field 5 of /proc/<pid>/stat, after the command name in parentheses). */
const groupOf = (pid: number | 'self'): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
};

const sameGroup = (pid: number): boolean => {
  try {
    return groupOf('self') === groupOf(pid);
  } catch {
    return true;
  }
};

/** Starts following the process npx started the service under, if it did; returns what stops following. */
export const followNpm = (options: FollowNpmOptions = {}): (() => void) => {
  if ((options.env ?? process.env).npm_command !== 'exec') return () => undefined;
  const parent = options.parent ?? (() => process.ppid);
  const first = parent();
  if (!(options.inGroupOf ?? sameGroup)(first)) return () => undefined;
  const stop =
    options.stop ??
    ((message: string): void => {
      process.stderr.write(`${message}\n`);
      process.kill(process.pid, 'SIGTERM');
    });
  const timer = setInterval(() => {
    if (parent() === first) return;
    clearInterval(timer);
    stop(`the process that started the service under npx (pid ${first}) has ended: stopping as on SIGTERM`);
  }, options.intervalMs ?? 1000);
  timer.unref();
  return () => clearInterval(timer);
};
