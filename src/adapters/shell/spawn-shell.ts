import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { ShellOptions, ShellRun } from '../../ports/shell-executor.js';
// `.ts`: the spawner process loads this module with Node's own type stripping (see spawner-process.ts).
import { joinEnds, tailOf } from '../../domain/text/cut-text.ts';

// Plain functions and erasable types only: the spawner process (spawner/) loads this file as
// TypeScript under the tests, where Node strips the types itself.

/** How commands are run: the shell, how much of their output is kept, how long output is awaited once the shell exited. */
export interface ShellSettings {
  readonly shell: string;
  readonly outputLimit: number;
  /**
   * After the shell exits, how long its output may still arrive. A process that left the
   * command's group (`setsid`, a daemon) and kept its output open would otherwise hold the run
   * past the shell's end, past its timeout and its abort.
   */
  readonly drainMs: number;
  /**
   * The longest a kill waits for a sandbox's report of its namespace (ShellOptions.sandboxReport):
   * bwrap writes it right after making the namespace. Absent: SANDBOX_REPORT_WAIT_MS.
   */
  readonly sandboxReportWaitMs?: number;
}

/** The longest a kill waits for a sandbox's report of its namespace by default (ShellSettings.sandboxReportWaitMs). */
export const SANDBOX_REPORT_WAIT_MS = 2000;

export const DEFAULT_SHELL_SETTINGS: ShellSettings = { shell: '/bin/sh', outputLimit: 64 * 1024, drainMs: 1000 };

/** A shell that could not start; an environment too large for the system is named as such. */
const startFailure = (error: NodeJS.ErrnoException): Error =>
  error.code === 'E2BIG'
    ? new Error('the command could not start: its environment (the request values it was given) is larger than the system allows (E2BIG)', { cause: error })
    : error;

/**
 * How often the group of a command whose shell has ended is looked at until its timeout: once
 * the group is empty nothing is left to kill, and its id is no longer looked at (another group
 * may take it later).
 */
const LEFTOVER_CHECK_MS = 1000;

/**
 * After the shell ended on its own: kills at `deadline` (performance.now()) what the command left
 * running in its process group (`sleep 1000 &`, `./deploy.sh &`), which would otherwise outlive
 * its timeout without a bound. Stops looking once the group is empty. A process that left the
 * group (`setsid`) is not reached, as at a timeout.
 */
const killLeftoversAt = (group: number, deadline: number): void => {
  const check = (): void => {
    try {
      // Signal 0: only whether a process of the group is still there.
      process.kill(-group, 0);
    } catch {
      return;
    }
    const left = deadline - performance.now();
    if (left > 0) {
      setTimeout(check, Math.min(left, LEFTOVER_CHECK_MS)).unref();
      return;
    }
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // Ended meanwhile.
    }
  };
  check();
};

/** Carries the start mark's path to the shell (a variable: a path is never spliced into the script). */
const MARK_VARIABLE = 'AGW_START_MARK';
/** Carries what the mark holds: the attempt's number above 1, else nothing (see ShellOptions.startAttempt). */
const ATTEMPT_VARIABLE = 'AGW_START_ATTEMPT';
/**
 * Put before a command that has a start mark: creates the mark (holding the attempt's number, or
 * empty), or stops with 125 and says why; then drops the variables, so that the command sees
 * exactly its own environment. On the command's first line, so that the shell's messages keep
 * naming the command's own lines.
 */
const MARK_START = `{ printf '%s' "$${ATTEMPT_VARIABLE}" >"$${MARK_VARIABLE}"; } 2>/dev/null || { echo "agent-gateway: the start mark $${MARK_VARIABLE} could not be written; the command was not run" >&2; exit 125; }; unset ${MARK_VARIABLE} ${ATTEMPT_VARIABLE}; `;

/** What the start mark of attempt `attempt` holds: its number above 1; a first attempt's mark stays empty, as marks were before they held one. */
const markText = (attempt: number | undefined): string => (attempt !== undefined && Number.isSafeInteger(attempt) && attempt > 1 ? String(attempt) : '');

/**
 * Runs `command` with `settings.shell -c` in a process group of its own, so that a timeout or an
 * abort kills everything the command started (at the timeout also what it left running after its
 * shell ended: killLeftoversAt). The command's environment is exactly
 * `options.env`: the caller's own is never passed on. Rejects only when the shell cannot start.
 */
/**
 * The outcome of a command whose caller aborted before it was handed over: nothing is started.
 * Starting it to kill it at once raced the sandbox's own start (bubblewrap): a kill landing while
 * bwrap made its PID namespace left the namespace's processes running, the command included.
 */
export const notStarted = (): ShellRun => ({ exitCode: null, timedOut: false, aborted: true, durationMs: 0, output: '' });

/** keep: {head, tail}: the output whole when nothing was dropped, else its first and last characters around the count left out. */
const keptEnds = (start: string, end: string, seen: number, tail: number): string => {
  if (seen <= start.length + tail) return start + end;
  // No half of a surrogate pair at either cut.
  const head = /[\uD800-\uDBFF]$/.test(start) ? start.slice(0, -1) : start;
  const last = tailOf(end, tail);
  return joinEnds(head, seen - head.length - last.length, last);
};

export const runShell = (command: string, options: ShellOptions, settings: ShellSettings = DEFAULT_SHELL_SETTINGS): Promise<ShellRun> => {
  if (options.signal?.aborted) return Promise.resolve(notStarted());
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      const [script, env] =
        options.startMark === undefined
          ? [command, { ...options.env }]
          : [`${MARK_START}${command}`, { ...options.env, [MARK_VARIABLE]: options.startMark, [ATTEMPT_VARIABLE]: markText(options.startAttempt) }];
      child = spawn(settings.shell, ['-c', script], {
        cwd: options.cwd,
        env,
        detached: true,
        stdio: options.sandboxReport === true ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
      }) as ChildProcessByStdio<null, Readable, Readable>;
    } catch (error) {
      return reject(startFailure(error as NodeJS.ErrnoException));
    }
    let output = '';
    // keep: {head, tail}: the first `head` characters in `output`, the rest in `end`, cut to its
    // last `tail` now and then (not on every chunk); `seen` counts every character.
    let end = '';
    let seen = 0;
    // One decoder per stream: a character split across two chunks is still decoded whole.
    const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
    let timedOut = false;
    let aborted = false;
    const collect =
      (decoder: StringDecoder) =>
      (chunk: Buffer): void => {
        const keep = options.keep;
        if (typeof keep === 'object') {
          const text = decoder.write(chunk);
          seen += text.length;
          const room = Math.max(0, keep.head - output.length);
          output += text.slice(0, room);
          end += text.slice(room);
          if (end.length > 2 * keep.tail) end = end.slice(-keep.tail);
        } else if (keep === 'tail') {
          // The end of a long output is kept (a job's log: how it ended).
          output += decoder.write(chunk);
          if (output.length > settings.outputLimit) output = output.slice(-settings.outputLimit);
        } else if (output.length < settings.outputLimit) output += decoder.write(chunk).slice(0, settings.outputLimit - output.length);
      };
    child.stdout.on('data', collect(decoders.stdout));
    child.stderr.on('data', collect(decoders.stderr));
    /** The shell's exit code (null when killed) once it exited; undefined while it runs. */
    let exitCode: number | null | undefined;
    let drain: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (code: number | null): void => {
      if (settled) return;
      settled = true;
      done();
      clearTimeout(drain);
      // What still holds the output (a process outside the group) no longer holds the run.
      child.stdout.destroy();
      child.stderr.destroy();
      const killed = timedOut || aborted;
      // The command's time limit binds what it started too, also once its shell has ended.
      if (!killed && child.pid !== undefined) killLeftoversAt(child.pid, started + options.timeoutMs);
      const kept = typeof options.keep === 'object' ? keptEnds(output, end, seen, options.keep.tail) : output;
      resolve({ exitCode: killed ? null : code, timedOut, aborted, durationMs: Math.round(performance.now() - started), output: kept });
    };
    // sandboxReport: the pid the sandbox reports on fd 3 (its namespace's first process), and
    // whether the report is in (fd 3 closed: bwrap closes it once written, or exited).
    let sandboxPid: number | undefined;
    let reported = options.sandboxReport !== true;
    let killWhenReported: NodeJS.Timeout | undefined;
    const killGroup = (): void => {
      if (!reported) {
        // Killed now, bwrap may have made the namespace but not yet tied it to itself: wait
        // for its report (milliseconds), bounded, then kill as without one.
        killWhenReported ??= setTimeout(() => {
          reported = true;
          killGroup();
        }, settings.sandboxReportWaitMs ?? SANDBOX_REPORT_WAIT_MS);
        return;
      }
      clearTimeout(killWhenReported);
      if (sandboxPid !== undefined) {
        try {
          process.kill(sandboxPid, 'SIGKILL');
        } catch {
          // Ended already.
        }
      }
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      // The shell ended already and something outside its group holds the output: done now.
      if (exitCode !== undefined) finish(exitCode);
    };
    const report = (child.stdio as unknown as Array<Readable | null>)[3];
    if (report) {
      let text = '';
      report.setEncoding('utf8');
      const reportIn = (): void => {
        if (reported) return;
        reported = true;
        if (killWhenReported !== undefined) killGroup();
      };
      report.on('data', (chunk: string) => {
        if (reported || text.length > 4096) return;
        text += chunk;
        // Taken as soon as the number is whole: the fd may stay open (a process given it).
        const pid = /"child-pid"\s*:\s*(\d+)\s*[,}]/.exec(text)?.[1];
        if (pid === undefined) return;
        sandboxPid = Number(pid);
        reportIn();
      });
      report.once('close', reportIn);
      report.on('error', () => undefined);
    }
    /**
     * At the timeout while only what the shell left holds its output (the drain): the command
     * ended in time, and its outcome stands — recorded as timed out, it failed (and a trigger's
     * `retries` ran it again); what it left is killed. False while the shell runs. (An abort
     * still says aborted: its caller stops what would follow, a job's commit.)
     */
    const endedInTime = (): boolean => {
      if (exitCode === undefined) return false;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Nothing of the group left.
      }
      finish(exitCode);
      return true;
    };
    const timer = setTimeout(() => {
      if (endedInTime()) return;
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
      clearTimeout(killWhenReported);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      done();
      reject(startFailure(error));
    });
    child.once('exit', (code) => {
      exitCode = code;
      if (timedOut || aborted) finish(code);
      else drain = setTimeout(() => finish(code), settings.drainMs);
    });
    child.once('close', (code) => finish(code));
  });
};
