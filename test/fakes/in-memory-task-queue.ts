import type { EnqueueOptions, RunningTask, TaskQueue, WorkOptions } from '../../src/ports/task-queue.js';

interface StoredTask {
  readonly id: string;
  readonly queue: string;
  readonly payload: object;
  readonly group?: string;
  /** Storage order. */
  readonly seq: number;
  attempt: number;
  state: 'waiting' | 'running' | 'done' | 'failed';
}

/** What several queues share, as replicas share a database: tasks, idempotency keys, the busy groups of ordered queues. */
export class InMemoryTaskStore {
  readonly tasks: StoredTask[] = [];
  readonly keys = new Set<string>();
  /** Groups of ordered queues with a task running in any queue on this store. */
  readonly busyGroups = new Set<string>();
  readonly #listeners = new Set<() => void>();
  #seq = 0;

  nextSeq(): number {
    return ++this.#seq;
  }

  listen(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Something changed: every queue on the store looks for work. */
  changed(): void {
    for (const listener of this.#listeners) setImmediate(listener);
  }
}

interface Worker {
  readonly queue: string;
  readonly handler: (payload: object, task: RunningTask) => Promise<void>;
  readonly options: WorkOptions<object>;
  /** Groups with a task running in this worker (oneAtATimePerGroup on a standard queue). */
  readonly busy: Set<string>;
  running: number;
}

export interface InMemoryTaskQueueOptions {
  /** Queues it knows besides the ordered ones: `depth` and `failed` name them also when they are empty. */
  readonly queues?: readonly string[];
  /** Queues whose groups run one at a time across every queue on the store (see TaskQueue). */
  readonly orderedQueues?: readonly string[];
  /** Attempts after the first one for a task whose handler threw (default 2); retried at once. */
  readonly retryLimit?: number;
  /**
   * How long a task of a queue may run, in ms, by queue name: past it, its signal aborts and it
   * counts as a failed attempt (retried, or failed for good) whatever its handler does later.
   */
  readonly runningTaskMs?: Readonly<Record<string, number>>;
}

/**
 * TaskQueue in memory, run by the TaskQueue contract like the pg-boss adapter. Every stored task
 * is also recorded in `tasks` (what unit tests look at); a queue with no worker only stores
 * them. `failNext` makes the next `enqueue` fail like a queue that is down. Queues made on one
 * `InMemoryTaskStore` behave as replicas on one database.
 */
export class InMemoryTaskQueue implements TaskQueue {
  readonly tasks: Array<{ queue: string; payload: object; group?: string }> = [];
  failNext = false;
  readonly #workers: Worker[] = [];
  readonly #ordered: ReadonlySet<string>;
  readonly #known: readonly string[];
  readonly #retryLimit: number;
  readonly #runningTaskMs: Readonly<Record<string, number>>;
  #stopped = false;
  readonly #unlisten: () => void;

  constructor(
    private readonly store: InMemoryTaskStore = new InMemoryTaskStore(),
    options: InMemoryTaskQueueOptions = {},
  ) {
    this.#ordered = new Set(options.orderedQueues ?? []);
    this.#known = [...(options.queues ?? []), ...this.#ordered];
    this.#retryLimit = options.retryLimit ?? 2;
    this.#runningTaskMs = options.runningTaskMs ?? {};
    this.#unlisten = store.listen(() => this.#pump());
  }

  async enqueue(queue: string, payload: object, options: EnqueueOptions = {}): Promise<string | null> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('queue down');
    }
    if (this.#ordered.has(queue) && options.group === undefined) throw new Error(`Task queue ${queue} is ordered: every task needs a group`);
    if (options.id !== undefined && options.key !== undefined) throw new Error('a task id is given without a key');
    if (options.key !== undefined) {
      if (this.store.keys.has(`${queue}:${options.key}`)) return null;
      this.store.keys.add(`${queue}:${options.key}`);
    }
    if (options.id !== undefined) {
      if (this.store.keys.has(`${queue}#${options.id}`)) return null;
      this.store.keys.add(`${queue}#${options.id}`);
    }
    const group = options.group === undefined ? {} : { group: options.group };
    this.tasks.push({ queue, payload: structuredClone(payload), ...group });
    // A task queued with its id ranks by it: ids sort in the order they were made (newTaskId).
    const seq = options.id?.startsWith('task-') ? Number(options.id.slice(5)) : this.store.nextSeq();
    this.store.tasks.push({ id: options.id ?? String(seq), queue, payload: structuredClone(payload), ...group, seq, attempt: 0, state: 'waiting' });
    this.store.changed();
    return options.id ?? String(seq);
  }

  newTaskId(): string {
    return `task-${this.store.nextSeq()}`;
  }

  async work<T extends object>(queue: string, handler: (payload: T, task: RunningTask) => Promise<void>, options: WorkOptions<T> = {}): Promise<void> {
    this.#workers.push({ queue, handler: handler as Worker['handler'], options: options as WorkOptions<object>, busy: new Set(), running: 0 });
    this.store.changed();
  }

  async depth(): Promise<Record<string, number>> {
    return this.#count((task) => task.state === 'waiting' || task.state === 'running');
  }

  async failed(): Promise<Record<string, number>> {
    return this.#count((task) => task.state === 'failed');
  }

  /** Takes no more tasks (running ones finish); stored tasks stay for another queue on the store. */
  stop(): void {
    this.#stopped = true;
    this.#unlisten();
  }

  #count(which: (task: StoredTask) => boolean): Record<string, number> {
    const counts: Record<string, number> = Object.fromEntries(this.#known.map((queue) => [queue, 0]));
    for (const task of this.store.tasks) if (which(task)) counts[task.queue] = (counts[task.queue] ?? 0) + 1;
    return counts;
  }

  /** Starts every task a worker may take now. */
  #pump(): void {
    if (this.#stopped) return;
    for (const worker of this.#workers) {
      for (;;) {
        if (worker.running >= (worker.options.maxConcurrent ?? 16)) break;
        const task = this.#next(worker);
        if (task === undefined) break;
        this.#run(worker, task);
      }
    }
  }

  /** The task the worker takes next: the oldest waiting one, a group's first (by orderBy, else storage order) when its group is free. */
  #next(worker: Worker): StoredTask | undefined {
    const ordered = this.#ordered.has(worker.queue);
    const byGroup = ordered || worker.options.oneAtATimePerGroup === true;
    const rank = (task: StoredTask): number => worker.options.orderBy?.(task.payload) ?? task.seq;
    const waiting = this.store.tasks.filter((task) => task.queue === worker.queue && task.state === 'waiting');
    for (const task of waiting) {
      if (!byGroup || task.group === undefined) return task;
      const busy = ordered ? this.store.busyGroups.has(`${task.queue}:${task.group}`) : worker.busy.has(task.group);
      if (busy) continue;
      const first = waiting
        .filter((other) => other.group === task.group)
        .reduce((best, other) => (rank(other) < rank(best) || (rank(other) === rank(best) && other.seq < best.seq) ? other : best));
      if (first === task) return task;
    }
    return undefined;
  }

  #run(worker: Worker, task: StoredTask): void {
    const ordered = this.#ordered.has(worker.queue);
    const groupKey = `${task.queue}:${task.group}`;
    task.state = 'running';
    task.attempt++;
    worker.running++;
    if (task.group !== undefined) {
      if (ordered) this.store.busyGroups.add(groupKey);
      else if (worker.options.oneAtATimePerGroup) worker.busy.add(task.group);
    }
    const claim = new AbortController();
    const limitMs = this.#runningTaskMs[worker.queue];
    let settled = false;
    const settle = (outcome: 'done' | 'failed'): void => {
      if (settled) return;
      settled = true;
      clearTimeout(limit);
      task.state = outcome === 'done' ? 'done' : task.attempt > this.#retryLimit ? 'failed' : 'waiting';
      worker.running--;
      if (task.group !== undefined) {
        this.store.busyGroups.delete(groupKey);
        worker.busy.delete(task.group);
      }
      this.store.changed();
    };
    // Past its queue's time limit the task is taken back: a failed attempt, its signal aborted.
    // A real timer, as pg-boss's limit is in real seconds: the contract runs one case on both,
    // and waits for what follows (the next attempt), never for the time itself.
    const limit =
      limitMs === undefined
        ? undefined
        : setTimeout(() => {
            settle('failed');
            claim.abort(new Error(`the task ran past its queue's time limit of ${limitMs} ms`));
          }, limitMs);
    void Promise.resolve()
      .then(() => worker.handler(structuredClone(task.payload), { id: task.id, attempt: task.attempt, signal: claim.signal }))
      .then(
        () => settle('done'),
        () => settle('failed'),
      );
  }
}
