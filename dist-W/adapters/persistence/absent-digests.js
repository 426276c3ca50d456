/** Digests held to answer unknown keys without a query; with more keys than this, see `#missed`. */
const MAX_KNOWN = 100_000;
/** Unknown digests remembered one by one, when there are more keys than MAX_KNOWN. */
const MAX_MISSED = 10_000;
/**
 * Tells, without a query, that no API key has a given digest — the negative side of the key
 * cache, so a flood of unknown but well-formed keys never reaches the database per request.
 *
 * It holds every stored digest, read with one query the first time it is asked, and is kept
 * current by the change notifications: every digest that appears (insert, new digest) or goes
 * (delete) is notified and is added — a digest that went stays "maybe present" and just costs a
 * query. So the set is always a superset of the stored digests, and a digest outside it is
 * surely absent. With more than MAX_KNOWN keys it holds none; then single unknown digests are
 * remembered instead (bounded, oldest dropped first), each forgotten when it is notified.
 *
 * Only correct while notifications are live: the owner calls `reset` whenever they (re)start
 * or stop, and on a truncate; it asks nothing while they are down.
 */
export class AbsentDigests {
    readDigests;
    limits;
    /** The digests that may exist; `loaded` once the stored ones are in (notifications are added meanwhile). */
    #known;
    #loading;
    /** Set when the table held more than MAX_KNOWN keys: single misses are remembered instead. */
    #tooMany = false;
    #missed = new Set();
    /** Bumped by every change: a lookup that raced one does not remember its miss. */
    #generation = 0;
    /** `readDigests(limit)`: up to `limit` stored digests. */
    constructor(readDigests, limits = { maxKnown: MAX_KNOWN, maxMissed: MAX_MISSED }) {
        this.readDigests = readDigests;
        this.limits = limits;
    }
    get generation() {
        return this.#generation;
    }
    /** True when no key has the digest; false when one may (the caller then asks the database). */
    async surelyAbsent(digest) {
        if (this.#tooMany)
            return this.#missed.has(digest);
        if (this.#known === undefined)
            await this.#load();
        else if (!this.#known.loaded)
            await this.#loading;
        return this.#known?.loaded === true && !this.#known.digests.has(digest);
    }
    /** The database found no key with the digest, in a lookup that started at `generation`. */
    missed(digest, generation) {
        if (!this.#tooMany || generation !== this.#generation)
            return;
        if (this.#missed.size >= this.limits.maxMissed)
            this.#missed.delete(this.#missed.values().next().value);
        this.#missed.add(digest);
    }
    /** A digest appeared or went (a notification, or a key added here). */
    changed(digest) {
        this.#generation++;
        this.#missed.delete(digest);
        const known = this.#known;
        if (known === undefined)
            return;
        known.digests.add(digest);
        // Past the bound: read again (which finds how many there really are).
        if (known.digests.size > this.limits.maxKnown)
            this.#known = undefined;
    }
    /** Forgets everything (notifications restarted or stopped, a truncate). */
    reset() {
        this.#generation++;
        this.#known = undefined;
        this.#loading = undefined;
        this.#tooMany = false;
        this.#missed.clear();
    }
    /** Reads the stored digests once for every caller waiting; a failure leaves nothing loaded (the next call reads again). */
    #load() {
        const entry = { digests: new Set(), loaded: false };
        this.#known = entry;
        const loading = this.readDigests(this.limits.maxKnown + 1).then((digests) => {
            if (this.#known !== entry)
                return;
            if (digests.length > this.limits.maxKnown) {
                this.#known = undefined;
                this.#tooMany = true;
                return;
            }
            for (const digest of digests)
                entry.digests.add(digest);
            entry.loaded = true;
        }, () => {
            if (this.#known === entry)
                this.#known = undefined;
        });
        this.#loading = loading;
        return loading;
    }
}
//# sourceMappingURL=absent-digests.js.map