import { displayPrefix } from '../../domain/auth/api-key-format.js';
import { validateKeyName } from '../../domain/auth/key-name.js';
export class CreateApiKey {
    keys;
    crypto;
    ids;
    clock;
    constructor(keys, crypto, ids, clock) {
        this.keys = keys;
        this.crypto = crypto;
        this.ids = ids;
        this.clock = clock;
    }
    async execute(input) {
        const name = validateKeyName(input.name);
        const key = this.crypto.mint();
        const record = {
            id: this.ids.next(),
            name,
            keyHash: this.crypto.digest(key),
            prefix: displayPrefix(key),
            createdAt: this.clock.now(),
            lastUsedAt: null,
        };
        await this.keys.add(record);
        const { keyHash: _digest, ...summary } = record;
        return { ...summary, key };
    }
}
//# sourceMappingURL=create-api-key.js.map