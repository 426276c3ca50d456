import { DomainError } from '../../domain/errors/domain-error.js';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Deletes a key's record, which revokes the key at once. */
export class RevokeApiKey {
    keys;
    constructor(keys) {
        this.keys = keys;
    }
    async execute(input) {
        if (typeof input.id !== 'string' || !UUID.test(input.id)) {
            throw new DomainError('invalid_input', 'Key id must be a UUID');
        }
        if (!(await this.keys.remove(input.id.toLowerCase()))) {
            throw new DomainError('not_found', `No API key with id ${input.id}`);
        }
    }
}
//# sourceMappingURL=revoke-api-key.js.map