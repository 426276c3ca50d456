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
 * fails its own caller only, never the requests that happened to share its statement.
 */
export class GroupCommit {
    write;
    settings;
    /** Batches not started yet, oldest first; new items join the last one. */
    #batches = [];
    /** Writes running now. */
    #running = 0;
    /** Per key (settings.key), the last item's answer while it is not committed yet. */
    #lastOfKey = new Map();
    constructor(write, settings) {
        this.write = write;
        this.settings = settings;
    }
    /** Resolves with the item's result once it is committed; rejects with the write's error. */
    add(item) {
        if (this.settings.key === undefined)
            return this.#enqueue(item);
        const key = this.settings.key(item);
        const earlier = this.#lastOfKey.get(key);
        const enqueue = () => this.#enqueue(item);
        const answer = earlier === undefined ? enqueue() : earlier.then(enqueue, enqueue);
        this.#lastOfKey.set(key, answer);
        const forget = () => {
            if (this.#lastOfKey.get(key) === answer)
                this.#lastOfKey.delete(key);
        };
        answer.then(forget, forget);
        return answer;
    }
    #enqueue(item) {
        return new Promise((resolve, reject) => {
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
    async #drain() {
        for (let batch = this.#batches.shift(); batch !== undefined; batch = this.#batches.shift()) {
            const { items, waiters } = batch;
            try {
                const results = await this.write(items);
                for (const [i, waiter] of waiters.entries())
                    waiter.resolve(results[i]);
            }
            catch (error) {
                if (items.length === 1)
                    waiters[0].reject(error);
                else
                    await Promise.all(items.map((item, i) => Promise.resolve([item])
                        .then(this.write)
                        .then((results) => waiters[i].resolve(results[0]), waiters[i].reject)));
            }
        }
        this.#running--;
    }
}
//# sourceMappingURL=group-commit.js.map