/**
 * Under npm — `npm start`, `npx agent-gateway serve`, `npm exec` — the service stops when the
 * process that started it ends, as on SIGTERM. npm passes a SIGTERM or SIGINT it gets on to what
 * it started; `npm start` runs the service with `exec node`, so the service gets it, but `npx`
 * runs the command through `sh -c`: the signal ended the shell and the service, its child,
 * went on serving, re-parented, with no npm left to stop it (a supervisor stopping `npx …`
 * left it running, holding the port and the database). A process that started the service
 * without npm (a shell, systemd, a container's init, `setsid … &`) is not followed: a
 * daemonising shell ends on purpose. Looked at once a second; `process.ppid` asks the system
 * each time.
 */
export interface FollowNpmOptions {
  /** The environment the service started in: npm sets `npm_command` for what it runs. */
  readonly env?: NodeJS.ProcessEnv;
  readonly intervalMs?: number;
  /** The parent's pid now (default: `process.ppid`). */
  readonly parent?: () => number;
  /** What to do once the parent ended (default: a SIGTERM to this process, handled by serve). */
  readonly stop?: (message: string) => void;
}

/** Starts following the npm process that started the service, if one did; returns what stops following. */
export const followNpm = (options: FollowNpmOptions = {}): (() => void) => {
  const command = (options.env ?? process.env).npm_command;
  if (command === undefined || command === '') return () => undefined;
  const parent = options.parent ?? (() => process.ppid);
  const first = parent();
  const stop =
    options.stop ??
    ((message: string): void => {
      process.stderr.write(`${message}\n`);
      process.kill(process.pid, 'SIGTERM');
    });
  const timer = setInterval(() => {
    if (parent() === first) return;
    clearInterval(timer);
    stop(`the process that started the service under npm ${command} (pid ${first}) has ended: stopping as on SIGTERM`);
  }, options.intervalMs ?? 1000);
  timer.unref();
  return () => clearInterval(timer);
};
