import { isWellFormedApiKey } from '../../domain/auth/api-key-format.js';
import { summarize } from '../../domain/auth/api-key-record.js';
import { DomainError } from '../../domain/errors/domain-error.js';
/** How often `last_used_at` is written for one key: often enough to be useful, rare enough to stay off the hot path. */
export const LAST_USED_RESOLUTION_MS = 60_000;
/**
 * SPEC 5.2: read the presented key, look it up among the stored keys by digest and
 * compare in constant time. Every failure is the same `unauthorized` error.
 */
export class AuthenticateApiKey {
    keys;
    crypto;
    clock;
    logger;
    #touchedAt = new Map();
    constructor(keys, crypto, clock, logger) {
        this.keys = keys;
        this.crypto = crypto;
        this.clock = clock;
        this.logger = logger;
    }
    async execute(presented) {
        const digest = this.#digestOf(presented);
        return this.#accept(digest, await this.keys.findByHash(digest));
    }
    /**
     * execute's answer when it needs nothing but memory — the key is well-formed and its
     * repository knows it (KeyRepository.knownByHash) — else `undefined`, and the caller awaits
     * execute. A malformed key is refused here too. Spares a known key's request every promise.
     */
    known(presented) {
        const digest = this.#digestOf(presented);
        const record = this.keys.knownByHash(digest);
        return record === undefined ? undefined : this.#accept(digest, record);
    }
    #digestOf(presented) {
        if (presented === undefined || presented === '' || !isWellFormedApiKey(presented)) {
            throw new DomainError('unauthorized', 'Unauthorized');
        }
        return this.crypto.digest(presented);
    }
    #accept(digest, record) {
        if (record === null || !this.crypto.equal(digest, record.keyHash)) {
            throw new DomainError('unauthorized', 'Unauthorized');
        }
        this.#recordUse(record.id);
        return summarize(record);
    }
    #recordUse(id) {
        const now = this.clock.now();
        const last = this.#touchedAt.get(id);
        if (last !== undefined && now.getTime() - last < LAST_USED_RESOLUTION_MS)
            return;
        this.#touchedAt.set(id, now.getTime());
        this.keys.touch(id, now).catch((error) => {
            this.logger.warn({ err: error, keyId: id }, 'could not record key use');
        });
    }
}
//# sourceMappingURL=authenticate-api-key.js.map