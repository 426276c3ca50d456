import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DatabaseUnavailable } from '../../shared/database-unavailable.js';
import { checkpointIfDue, type CheckpointPolicy } from './checkpoints.js';
import { refuseFileAsDataDir } from './data-dir-check.js';
import { panicFailure } from './panic.js';
import { fromPortableError, type Notification, type Opened, type PortableQueryOptions, type Reply, type Request, type ThreadData } from './protocol.js';

export interface QueryResults<T = Record<string, unknown>> {
  readonly rows: T[];
  readonly affectedRows?: number;
  readonly fields: ReadonlyArray<{ readonly name: string; readonly dataTypeID: number }>;
}

export interface PgliteTransaction {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: PortableQueryOptions): Promise<QueryResults<T>>;
  exec(sql: string): Promise<QueryResults[]>;
  rollback(): Promise<void>;
  readonly closed: boolean;
}

/**
 * The open embedded database, as the ORM (through kysely), pg-boss (`fromPglite`) and the service
 * use it: PGlite's own interface, plus how busy the thread that runs its statements is. The
 * service runs it on a thread of its own (PgliteThread); a CLI command on its main thread
 * (openPgliteHere).
 */
export interface EmbeddedPglite {
  readonly ready: boolean;
  readonly waitReady: Promise<void>;
  readonly closed: boolean;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: PortableQueryOptions): Promise<QueryResults<T>>;
  exec(sql: string): Promise<QueryResults[]>;
  /** Runs `callback` in a transaction: committed when it returns, rolled back when it throws or calls `rollback()`. */
  transaction<T>(callback: (tx: PgliteTransaction) => Promise<T>): Promise<T>;
  /** Subscribes to NOTIFY on `channel`; returns the function that unsubscribes. */
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
  /** Closes the database (PGlite writes its state out). Idempotent. */
  close(): Promise<void>;
  /** How long the event loop of the thread that runs the statements has worked and idled so far, in ms. */
  eventLoopUtilization(): { readonly active: number; readonly idle: number };
}

/**
 * The young generation of the thread's V8 heap, in MB. V8's default on this size of machine grows
 * to 32 MB and stays there; the thread's JavaScript (PGlite's glue, the messages) needs little:
 * its committed heap measured 61 MB with the default and 34 MB with 4 MB after 2 000 statements.
 * 8 MB matches the main thread's `--max-semi-space-size=8` (docs/deployment.md, "Memory").
 */
const THREAD_YOUNG_GENERATION_MB = 8;

type Pending = { resolve(result: unknown): void; reject(error: Error): void };
type Distribute<T> = T extends unknown ? Omit<T, 'id'> : never;

/**
 * Checkpoints the thread asks for itself (checkpoints.ts); `onError` hears a check or checkpoint
 * that failed, `onCheckpoint` each checkpoint made.
 */
export interface ThreadCheckpoints extends CheckpointPolicy {
  onError(error: Error): void;
  onCheckpoint?(): void;
}

/**
 * The embedded PGlite database, run on a thread of its own. PGlite executes each statement
 * synchronously in WebAssembly; on the main thread that held the event loop — and every HTTP
 * request waiting on it — for the length of each statement, and longer when queued statements
 * ran back to back (bench/README.md, "Measurements behind the code"). The statements now run on the
 * other thread and the main thread only sends and receives messages.
 *
 * Offers the part of PGlite's interface that MikroORM (through kysely), pg-boss (`fromPglite`)
 * and the service use: `query`, `exec`, `transaction`, `listen`, `close`. Query options that
 * hold functions (parsers, serializers) cannot cross threads and are refused.
 *
 * While a request is outstanding the thread keeps the process alive; otherwise it does not,
 * so an open database never holds a finished process — as with PGlite on the main thread.
 */
export class PgliteThread implements EmbeddedPglite {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Map<number, (payload: string) => void>();
  #next = 1;
  #closed = false;
  #closing: Promise<void> | undefined;
  #failure: Error | undefined;
  #checkpointTimer: NodeJS.Timeout | undefined;
  #checkpointing = false;
  #checkpoints: CheckpointPolicy | undefined;
  readonly ready = true;
  readonly waitReady = Promise.resolve();

  private constructor(
    worker: Worker,
    private readonly onFailure: (error: Error) => void,
  ) {
    this.#worker = worker;
    worker.on('message', (message: Reply | Notification) => {
      if ('subscription' in message) this.#listeners.get(message.subscription)?.(message.payload);
      else this.#settle(message);
    });
    worker.on('error', (error) => this.#fail(new DatabaseUnavailable(`The embedded database thread failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => this.#fail(new DatabaseUnavailable(`The embedded database thread stopped (exit code ${code})`)));
    worker.unref();
  }

  /** Looks at the log's growth every `policy.checkEveryMs` and checkpoints when it is due; stops at close. */
  #startCheckpoints(policy: ThreadCheckpoints): void {
    this.#checkpoints = { checkEveryMs: policy.checkEveryMs, walBytes: policy.walBytes, maxAgeMs: policy.maxAgeMs };
    this.#checkpointTimer = setInterval(() => {
      if (this.#checkpointing || this.closed) return;
      this.#checkpointing = true;
      checkpointIfDue(this, policy)
        .then((made) => {
          if (made) policy.onCheckpoint?.();
        })
        .catch((error: unknown) => {
          if (!this.closed) policy.onError(error as Error);
        })
        .finally(() => {
          this.#checkpointing = false;
        });
    }, policy.checkEveryMs);
    this.#checkpointTimer.unref();
  }

  /**
   * Starts the thread and opens the database in `dataDir`; rejects with PGlite's error if it
   * cannot. `onFailure` hears once if the thread dies later (every request then fails).
   * `settings`: PostgreSQL settings for this boot only (none: PGlite's defaults).
   * `checkpoints`: checkpoint as PostgreSQL's checkpointer would (checkpoints.ts); a process
   * that keeps the database open for long needs them, or its write-ahead log only grows.
   */
  static async open(
    dataDir: string,
    onFailure: (error: Error) => void = () => undefined,
    settings: Readonly<Record<string, string>> = {},
    checkpoints?: ThreadCheckpoints,
  ): Promise<PgliteThread> {
    await refuseFileAsDataDir(dataDir);
    const extension = extname(fileURLToPath(import.meta.url)); // .ts under tsx (tests), .js when built
    const worker = new Worker(new URL(`./pglite-worker${extension}`, import.meta.url), {
      // Under tsx (the tests) the thread would load tsx's loader too: about 0.4 s of each open.
      // The worker is TypeScript that Node runs by stripping its types, so where Node can, the
      // thread starts without the parent's loader options.
      execArgv: extension === '.ts' && process.features.typescript ? [] : undefined,
      workerData: { dataDir, settings } satisfies ThreadData,
      resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
    });
    let opening: { resolve(opened: Opened): void; reject(error: Error): void } | undefined;
    const onMessage = (opened: Opened): void => opening?.resolve(opened);
    const onError = (error: Error): void => opening?.reject(error);
    const onExit = (code: number): void => opening?.reject(new Error(`The embedded database thread stopped while opening (exit code ${code})`));
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    try {
      const opened = await new Promise<Opened>((resolve, reject) => (opening = { resolve, reject }));
      if (!opened.opened) {
        const cause = fromPortableError(opened.error);
        throw new Error(`Cannot open the embedded database in ${dataDir}: ${cause.message}`, { cause });
      }
    } catch (error) {
      await worker.terminate();
      throw error;
    } finally {
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
    }
    const thread = new PgliteThread(worker, onFailure);
    if (checkpoints !== undefined) thread.#startCheckpoints(checkpoints);
    return thread;
  }

  /** The checkpoints this thread asks for itself; undefined: none (PostgreSQL then checkpoints only at close). */
  get checkpoints(): CheckpointPolicy | undefined {
    return this.#checkpoints;
  }

  /** How long the database thread's event loop has worked and idled so far (every statement runs there), in ms. */
  eventLoopUtilization(): { readonly active: number; readonly idle: number } {
    return this.#worker.performance.eventLoopUtilization();
  }

  /** True once closed, or once the thread has failed. */
  get closed(): boolean {
    return this.#closed || this.#failure !== undefined;
  }

  async query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: PortableQueryOptions): Promise<QueryResults<T>> {
    return (await this.#call({ op: 'query', sql, params, options: portable(options) })) as QueryResults<T>;
  }

  async exec(sql: string): Promise<QueryResults[]> {
    return (await this.#call({ op: 'exec', sql })) as QueryResults[];
  }

  /**
   * Runs `callback` in a transaction, as PGlite does: committed when it returns, rolled back
   * when it throws or calls `rollback()`. Other statements wait until it has ended.
   */
  async transaction<T>(callback: (tx: PgliteTransaction) => Promise<T>): Promise<T> {
    const number = (await this.#call({ op: 'begin' })) as number;
    let closed = false;
    const open = (): void => {
      if (closed) throw new Error('Transaction is closed');
    };
    const tx: PgliteTransaction = {
      query: async <R>(sql: string, params?: unknown[], options?: PortableQueryOptions) => {
        open();
        return (await this.#call({ op: 'query', tx: number, sql, params, options: portable(options) })) as QueryResults<R>;
      },
      exec: async (sql: string) => {
        open();
        return (await this.#call({ op: 'exec', tx: number, sql })) as QueryResults[];
      },
      rollback: async () => {
        open();
        await this.#call({ op: 'rollback', tx: number });
        closed = true;
      },
      get closed() {
        return closed;
      },
    };
    let result: T;
    try {
      result = await callback(tx);
    } catch (error) {
      closed = true;
      await this.#call({ op: 'end', tx: number, commit: false });
      throw error;
    }
    closed = true;
    await this.#call({ op: 'end', tx: number, commit: true });
    return result;
  }

  /** Subscribes to NOTIFY on `channel`; returns the function that unsubscribes. */
  async listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>> {
    const subscription = (await this.#call({ op: 'listen', channel })) as number;
    this.#listeners.set(subscription, callback);
    return async () => {
      if (!this.#listeners.delete(subscription) || this.#closed) return;
      await this.#call({ op: 'unlisten', subscription });
    };
  }

  /** Closes the database (PGlite writes its state out) and ends the thread. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.closed ? Promise.resolve() : this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    clearInterval(this.#checkpointTimer);
    try {
      await this.#call({ op: 'close' });
    } finally {
      this.#closed = true;
      this.#listeners.clear();
      await this.#worker.terminate();
    }
  }

  #call(request: Distribute<Request>): Promise<unknown> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#closed) return Promise.reject(new Error('The embedded database is closed'));
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      try {
        this.#worker.postMessage({ ...request, id });
      } catch (error) {
        // A value that cannot be copied to another thread (a function, a symbol) as a parameter.
        reject(new Error(`Cannot send this statement to the embedded database: ${(error as Error).message}`, { cause: error }));
        return;
      }
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
    });
  }

  #settle(reply: Reply): void {
    const pending = this.#pending.get(reply.id);
    if (pending === undefined) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#worker.unref();
    if (reply.ok) {
      pending.resolve(reply.result);
      return;
    }
    const error = fromPortableError(reply.error);
    pending.reject(error);
    const panic = panicFailure(error, 'start the service again');
    if (panic !== undefined) this.#panicked(panic);
  }

  /**
   * PostgreSQL stopped with a PANIC (panicFailure: PGlite would leave the next statement
   * unanswered; a SIGTERM could not stop the service then). The thread is taken as failed, like
   * one that died: every statement waiting and every later one is refused with the cause,
   * `onFailure` is told (the service stops, for its supervisor to start it again: the start
   * recovers what was committed from the log), and the thread, which may be spinning in the stuck
   * statement, is ended.
   */
  #panicked(failure: DatabaseUnavailable): void {
    this.#fail(failure);
    void this.#worker.terminate();
  }

  /**
   * The thread is gone: every outstanding and later request fails with `error`, a
   * DatabaseUnavailable (a 503 while the service stops for its supervisor to start it again).
   */
  #fail(error: DatabaseUnavailable): void {
    if (this.#closed || this.#failure !== undefined) return;
    this.#failure = error;
    clearInterval(this.#checkpointTimer);
    this.onFailure(error);
    for (const pending of this.#pending.values()) pending.reject(this.#failure);
    this.#pending.clear();
  }
}

const portable = (options: PortableQueryOptions | undefined): PortableQueryOptions | undefined => {
  if (options === undefined) return undefined;
  for (const [key, value] of Object.entries(options) as Array<[string, unknown]>) {
    if (typeof value === 'function' || (key !== 'rowMode' && key !== 'paramTypes' && value !== undefined)) {
      throw new Error(`Query option "${key}" is not supported by the embedded database thread`);
    }
  }
  return options;
};
