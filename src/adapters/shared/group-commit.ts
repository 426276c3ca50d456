import { DatabaseUnavailable } from './database-unavailable.js';

/** How a GroupCommit writes: `parallel` writes at once (default 1), each carrying at most `maxItems`. */
export interface GroupCommitSettings<T> {
  /**
   * Writes that may run at once; by default one (ONE_WRITE_AT_A_TIME), which the service uses on
   * both engines.
   */
  readonly parallel?: number;
  /** Most items one write carries. */
  readonly maxItems: number;
  /**
   * The row an item writes, where two items may write the same one (a request id recorded twice,
   * an action run saved again): an item whose key is still being added or written waits until
   * that earlier item has committed, so that items of one key commit in the order they were added
   * even when parallel writes carry them.
   */
  readonly key?: (item: T) => string;
}

/**
 * One write at a time per GroupCommit, on both engines. PGlite runs one statement at a time
 * anyway. On PostgreSQL three at a time were used, so that a write need not wait for the previous
 * one's commit; but under load the items waiting meanwhile then split into three smaller
 * statements, and on a 2-core machine the statements' own cost (the driver's, the server's
 * parse, plan and commit) is what bounds the rate: matched webhooks at 32 connections, 3
 * alternating runs, 5 316 req/s with three, 5 393 with two, 6 248 with one (+16 %); the chat
 * bench at 500 req/s kept its p99 (median 24.4 ms either way, p50 5.7 → 6.4 ms). Batches grow
 * with the database's latency, so a far database costs larger batches, not a lower rate.
 */
const ONE_WRITE_AT_A_TIME = 1;

interface Waiter<R> {
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

interface Batch<T, R> {
  readonly items: T[];
  readonly waiters: Waiter<R>[];
}

/**
 * Group commit: items added while every write is busy, or in the same turn of the event loop, are
 * stored together by the next single write (one statement, one commit), and each caller is
 * answered when the write that carried its item has committed. At low load an item is written at
 * once; under load one statement carries many items instead of one statement (and one round trip
 * to the database) each. An item added after another one's `add` resolved is always committed
 * after it; items added at the same moment may commit in either order, unless they share a
 * `key`: those commit in the order they were added.
 *
 * `write` stores the items in one statement and returns one result per item, in order. A write of
 * several items that fails is tried again item by item, so that an item the database refuses
 * fails its own caller only, never the requests that happened to share its statement — unless it
 * failed because the database cannot be used now (DatabaseUnavailable, also as another error's
 * cause): that is no item's fault, and every caller of the write is rejected with it at once.
 */
export class GroupCommit<T, R> {
  /** Batches not started yet, oldest first; new items join the last one. */
  readonly #batches: Batch<T, R>[] = [];
  /** Writes running now. */
  #running = 0;
  /** Per key (settings.key), the last item's answer while it is not committed yet. */
  readonly #lastOfKey = new Map<string, Promise<R>>();

  constructor(
    private readonly write: (items: readonly T[]) => Promise<readonly R[]>,
    private readonly settings: GroupCommitSettings<T>,
  ) {}

  /** Resolves with the item's result once it is committed; rejects with the write's error. */
  add(item: T): Promise<R> {
    if (this.settings.key === undefined) return this.#enqueue(item);
    const key = this.settings.key(item);
    const earlier = this.#lastOfKey.get(key);
    const enqueue = () => this.#enqueue(item);
    const answer = earlier === undefined ? enqueue() : earlier.then(enqueue, enqueue);
    this.#lastOfKey.set(key, answer);
    const forget = () => {
      if (this.#lastOfKey.get(key) === answer) this.#lastOfKey.delete(key);
    };
    answer.then(forget, forget);
    return answer;
  }

  #enqueue(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let batch = this.#batches.at(-1);
      if (batch === undefined || batch.items.length >= this.settings.maxItems) {
        batch = { items: [], waiters: [] };
        this.#batches.push(batch);
      }
      batch.items.push(item);
      batch.waiters.push({ resolve, reject });
      if (this.#running < (this.settings.parallel ?? ONE_WRITE_AT_A_TIME)) {
        this.#running++;
        setImmediate(() => void this.#drain());
      }
    });
  }

  /** Writes the waiting batches one after another until none is left. */
  async #drain(): Promise<void> {
    for (let batch = this.#batches.shift(); batch !== undefined; batch = this.#batches.shift()) {
      const { items, waiters } = batch;
      try {
        const results = await this.write(items);
        for (const [i, waiter] of waiters.entries()) waiter.resolve(results[i]);
      } catch (error) {
        // A database that cannot be used now (unreachable, the session ended, the embedded thread
        // failed) would refuse each item too: every caller is answered with it at once (a 503),
        // instead of one more statement per item, each waiting for a connection that fails.
        if (items.length === 1 || unavailableIn(error)) for (const waiter of waiters) waiter.reject(error);
        else
          await Promise.all(
            items.map((item, i) =>
              Promise.resolve([item])
                .then(this.write)
                .then((results) => waiters[i].resolve(results[0]), waiters[i].reject),
            ),
          );
      }
    }
    this.#running--;
  }
}

/** Whether `error` is DatabaseUnavailable, or was caused by it (its chain of causes, a few deep). */
const unavailableIn = (error: unknown): boolean => {
  let cause = error;
  for (let depth = 0; depth < 8 && cause instanceof Error; depth++, cause = cause.cause) if (cause instanceof DatabaseUnavailable) return true;
  return false;
};
