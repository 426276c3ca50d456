export interface WorkOptions {
  /**
   * At most this many tasks of the queue run at once in this process. Without it the
   * queue runs many at once, for short tasks.
   */
  readonly maxConcurrent?: number;
  /** Tasks of one group (see `enqueue`) run one at a time in this process, in order. */
  readonly oneAtATimePerGroup?: boolean;
}

/** Durable background work: a task is stored before `enqueue` resolves and survives restarts. */
export interface TaskQueue {
  /**
   * Stores a task for `queue`. When this resolves the task is durable: a crash afterwards
   * does not lose it. Returns the task id.
   */
  enqueue(queue: string, payload: object, options?: { readonly group?: string }): Promise<string>;

  /**
   * Runs `handler` for the tasks of `queue`, several at a time, until the queue stops.
   * A handler that throws marks the task failed (retried as the queue is configured).
   * A task whose worker died (process killed) is run again after the queue notices.
   */
  work<T extends object>(
    queue: string,
    handler: (payload: T, task: { id: string; attempt: number }) => Promise<void>,
    options?: WorkOptions,
  ): Promise<void>;

  /** Tasks waiting or running, per queue. */
  depth(): Promise<Record<string, number>>;

  /** Tasks that failed for good (retries exhausted) and are still kept, per queue. */
  failed(): Promise<Record<string, number>>;
}
