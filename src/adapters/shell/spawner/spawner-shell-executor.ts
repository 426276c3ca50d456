import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ShellExecutor, ShellOptions, ShellRun } from '../../../ports/shell-executor.js';
import { DEFAULT_SHELL_SETTINGS, notStarted, type ShellSettings } from '../spawn-shell.js';
import type { SpawnerReply, SpawnerRequest } from './spawner-protocol.js';

interface Pending {
  /** The spawner the command was sent to. */
  readonly child: ChildProcess;
  /**
   * It has no start mark, so its caller is the only one to learn its outcome (a job's agent, a
   * job's git step): a spawner let go is kept connected until it ends (#release).
   */
  readonly awaited: boolean;
  resolve(run: ShellRun): void;
  reject(error: Error): void;
}

/**
 * Runs commands from a small process of its own (spawner-process), started at the first command.
 * Starting a process copies the page tables of the process that starts it, and the service with
 * its embedded database is hundreds of MB: each command held the event loop — and every request
 * waiting on it — for 4–10 ms (docs/architecture.md, "Commands run from a spawner process"). The
 * spawner is tens of MB and does that work on its own, off the service's CPU time and event loop.
 *
 * The spawner keeps the service alive only while commands run. When the service exits, even
 * killed, it exits too — at once when no command runs, else once its commands have ended,
 * leaving their outcomes beside their start marks (spawner-process.ts); `close` stops it once
 * running commands have finished.
 * If it dies, the commands it was running fail with an error saying so, and the next command
 * starts a new one.
 */
export class SpawnerShellExecutor implements ShellExecutor {
  #child: ChildProcess | undefined;
  readonly #pending = new Map<number, Pending>();
  #next = 1;
  /** Spawners let go (#letGo) still connected: they run commands their callers can abort (#release). */
  readonly #letGone = new Set<ChildProcess>();
  /** Resolves when no command is running any more (`close` waits for it). */
  #idle: { readonly promise: Promise<void>; resolve(): void } | undefined;

  constructor(private readonly settings: ShellSettings = DEFAULT_SHELL_SETTINGS) {}

  run(command: string, options: ShellOptions): Promise<ShellRun> {
    // Never handed over: the spawner would start it and kill it at once (notStarted).
    if (options.signal?.aborted) return Promise.resolve(notStarted());
    const child = this.#spawner();
    const id = this.#next++;
    return new Promise<ShellRun>((resolve, reject) => {
      const onAbort = (): void => {
        if (child.connected) child.send({ type: 'abort', id } satisfies SpawnerRequest);
      };
      const done = (): void => options.signal?.removeEventListener('abort', onAbort);
      this.#pending.set(id, {
        child,
        // A command with a start mark (a trigger's or a schedule's) is left to finish alone when
        // let go, its outcome beside its mark for the next start (the queue's signal is never
        // aborted at a stop); one without keeps its spawner connected: a job's agent, and a job's
        // git step too, whose runner, unanswered, waited until the task queue's stop gave up on it
        // (15 s past the grace period) instead of going on to commit and record the job.
        awaited: options.startMark === undefined,
        resolve: (run) => {
          done();
          resolve(run);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      this.#hold(child);
      const request: SpawnerRequest = {
        type: 'run',
        id,
        command,
        cwd: options.cwd,
        timeoutMs: options.timeoutMs,
        env: options.env,
        startMark: options.startMark,
        startAttempt: options.startAttempt,
        keep: options.keep,
        sandboxReport: options.sandboxReport,
      };
      child.send(request, (error) => {
        if (error) this.#settle(id, new Error(`the command could not be handed to the spawner process: ${error.message}`, { cause: error }));
      });
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Waits for running commands, then stops the spawner. A later `run` starts a new one. With
   * `waitMs` (the service's stop), commands still running after it are left to finish on their
   * own, as in a killed service: the spawner is let go (it stays until they end, their time
   * limits kept, and leaves each one's outcome beside its start mark), and their callers get no
   * outcome; the records say `running`, and the next start records the outcome left (or, when
   * there is none yet, takes them as interrupted), never starting them again. A stop then ends in time instead of
   * lasting as long as the longest command (until the service manager kills it).
   * A command without a start mark (a job's agent, which the service stops itself once the grace
   * period is over, and a job's git step) still gets its outcome: the spawner stays connected
   * until those have ended (#release), and an abort coming after the wait still kills the command
   * and answers its caller.
   */
  async close(waitMs?: number): Promise<void> {
    const deadline = waitMs === undefined ? undefined : Date.now() + waitMs;
    // Until no command runs when this looks: a caller whose command has just ended may start its
    // next one (a job's next git step) before this resumes, and that one must not be cut off.
    while (this.#pending.size > 0) {
      if (this.#idle === undefined) {
        let resolve = (): void => undefined;
        const promise = new Promise<void>((done) => (resolve = done));
        this.#idle = { promise, resolve };
      }
      if (deadline === undefined) {
        await this.#idle.promise;
        continue;
      }
      let timer: NodeJS.Timeout | undefined;
      const late = await Promise.race([
        this.#idle.promise.then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), Math.max(0, deadline - Date.now())))),
      ]);
      clearTimeout(timer);
      if (late) return this.#letGo();
    }
    const child = this.#child;
    if (child === undefined) return;
    this.#child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    if (child.connected) child.disconnect();
    else child.kill('SIGKILL');
    await exited;
  }

  /** Leaves the running commands to finish without the service (see close); later commands start a new spawner. */
  #letGo(): void {
    const child = this.#child;
    this.#child = undefined;
    this.#idle?.resolve();
    this.#idle = undefined;
    if (child === undefined) return;
    this.#letGone.add(child);
    this.#hold(child);
    this.#release(child);
  }

  /**
   * Disconnects a spawner that was let go, its commands left to finish on their own and their
   * callers given no outcome — once no command of it without a start mark runs any more.
   * Until then it stays connected (not holding the service): aborting such a command still
   * reaches it and kills the command, and its caller (a job stopped when the grace period ended,
   * whose runner then commits what the agent did and records the job as interrupted; or a job's
   * runner in one of its git steps then) gets its outcome instead of waiting for it until the
   * task queue's stop gives up on it. Commands of it that end meanwhile are answered too.
   */
  #release(child: ChildProcess): void {
    const commands = [...this.#pending].filter(([, pending]) => pending.child === child);
    if (commands.some(([, pending]) => pending.awaited)) return;
    for (const [id] of commands) this.#pending.delete(id);
    this.#letGone.delete(child);
    child.removeAllListeners('exit');
    child.removeAllListeners('message');
    if (child.connected) child.disconnect();
  }

  #spawner(): ChildProcess {
    if (this.#child !== undefined) return this.#child;
    const extension = extname(fileURLToPath(import.meta.url)); // .ts under tsx (tests), .js when built
    const child = fork(fileURLToPath(new URL(`./spawner-process${extension}`, import.meta.url)), [JSON.stringify(this.settings)], {
      // Not the service's flags: built JavaScript, or TypeScript Node strips itself (tests); with an
      // older Node under tsx, the parent's loader. A small young generation: the spawner holds
      // little (RSS measured ~50 MB at its start; running commands at full speed up to ~80 MB
      // with it, ~95 MB without).
      execArgv: [...(extension === '.ts' && !process.features.typescript ? process.execArgv : []), '--max-semi-space-size=1'],
      // Nothing of the service's environment (its secrets): each command is sent its own.
      env: {},
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    this.#child = child;
    child.on('message', (reply: SpawnerReply) => {
      if ('run' in reply) this.#settle(reply.id, null, reply.run);
      else this.#settle(reply.id, Object.assign(new Error(reply.error.message), reply.error.code === undefined ? {} : { code: reply.error.code }));
    });
    const gone = (why: string): void => {
      if (this.#child === child) this.#child = undefined;
      const error = new Error(`the spawner process running the command stopped (${why}); the command may have run`);
      // Only its own: after a close, the next commands may already run in a new spawner.
      for (const [id, pending] of [...this.#pending]) if (pending.child === child) this.#settle(id, error);
    };
    child.on('exit', (code, signal) => gone(signal ?? `exit code ${code}`));
    child.on('error', (error) => {
      // A process that could not start emits no 'exit'.
      if (child.pid === undefined) gone(`it could not start: ${error.message}`);
    });
    this.#hold(child);
    return child;
  }

  #settle(id: number, error: Error | null, run?: ShellRun): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#pending.delete(id);
    if (error === null) pending.resolve(run!);
    else pending.reject(error);
    this.#hold(pending.child);
    if (this.#letGone.has(pending.child)) this.#release(pending.child);
    if (this.#pending.size === 0) {
      this.#idle?.resolve();
      this.#idle = undefined;
    }
  }

  /** The spawner keeps this process alive only while commands of it run, and not once it was let go (#letGo). */
  #hold(child: ChildProcess): void {
    const running = !this.#letGone.has(child) && [...this.#pending.values()].some((pending) => pending.child === child);
    if (running) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  }
}
