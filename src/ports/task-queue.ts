export interface EnqueueOptions {
  /**
   * Tasks of one group can be run one at a time (see `WorkOptions.oneAtATimePerGroup`). Required
   * for every task of an ordered queue (see the adapter's configuration).
   */
  readonly group?: string;
  /**
   * Idempotency key: a second task with the same key in the same queue is not stored, and
   * `enqueue` resolves to `null` for it — also when both arrive at once. A key is
   * remembered as long as the queue keeps its task (days after it ran).
   */
  readonly key?: string;
  /**
   * The task's own id, made beforehand by `newTaskId()` (a stored request names the runs it will
   * queue): a second task with an id already stored in the queue is not stored, and `enqueue`
   * resolves to `null` for it, as for a key seen before. Not together with `key`.
   */
  readonly id?: string;
}

export interface WorkOptions<T = object> {
  /**
   * At most this many tasks of the queue run at once in this process. Without it the
   * queue runs many at once, for short tasks.
   */
  readonly maxConcurrent?: number;
  /**
   * Tasks of one group (see `enqueue`) run one at a time, in order. On a queue the adapter was
   * configured to keep ordered, this holds across every process sharing the store (replicas):
   * a group's next task starts only once the previous one finished anywhere, in the order
   * the tasks were stored. On other queues it holds within this process only.
   */
  readonly oneAtATimePerGroup?: boolean;
  /**
   * The order of a group's tasks, when the payload knows it better than storage order does
   * (a chat's messages by the platform's update number). Lower runs first. Without it, a
   * group's tasks run in the order they were stored.
   */
  readonly orderBy?: (payload: T) => number;
}

/** What a handler is told of the task it runs. */
export interface RunningTask {
  readonly id: string;
  /** 1 for the first run, 2 for the first retry, … */
  readonly attempt: number;
  /** Aborted when the queue took the task back (see `TaskQueue.work`); its reason says why. */
  readonly signal: AbortSignal;
}

/** Durable background work: a task is stored before `enqueue` resolves and survives restarts. */
export interface TaskQueue {
  /**
   * A new id for `enqueue`'s `id`. Ids sort in the order this process made them, and tasks of a
   * group queued with them run in that order, whether they were queued together or not.
   */
  newTaskId(): string;

  /**
   * Stores a task for `queue`. When this resolves the task is durable: a crash afterwards
   * does not lose it. Returns the task id, or `null` when `options.key` was seen before.
   */
  enqueue(queue: string, payload: object, options?: EnqueueOptions): Promise<string | null>;

  /**
   * Runs `handler` for the tasks of `queue`, several at a time, until the queue stops.
   * A handler that throws marks the task failed (retried as the queue is configured).
   * A task whose worker died (process killed) is run again after the queue notices.
   * A task the queue takes back while its handler still runs — it ran past its queue's time
   * limit, or another process took it over — is run again too: its `signal` aborts then, and the
   * handler is to stop at once (what it returns is ignored). A queue's stop aborts nothing: a
   * handler still running then is left to finish, and its task runs again after the next start.
   */
  work<T extends object>(queue: string, handler: (payload: T, task: RunningTask) => Promise<void>, options?: WorkOptions<T>): Promise<void>;

  /** Tasks waiting or running, per queue. */
  depth(): Promise<Record<string, number>>;

  /** Tasks that failed for good (retries exhausted) and are still kept, per queue. */
  failed(): Promise<Record<string, number>>;
}
