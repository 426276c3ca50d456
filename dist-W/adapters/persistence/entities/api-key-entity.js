import { defineEntity, p } from '@mikro-orm/core';
/**
 * Mapping of the `api_keys` table (created by Migration20261123000000_api_keys). Its NOTIFY
 * triggers are the migrations' own (the ORM leaves triggers alone: `ignoreTriggers`).
 */
export const ApiKeyEntity = defineEntity({
    name: 'ApiKey',
    tableName: 'api_keys',
    properties: {
        id: p.uuid().primary(),
        name: p.string().length(100),
        // char(64): read back as written (a digest has 64 characters; trimmed anyway).
        keyHash: p.string().columnType('char(64)').fieldName('key_hash').unique('api_keys_key_hash_unique'),
        prefix: p.string().length(16),
        createdAt: p.datetime().fieldName('created_at').defaultRaw('now()'),
        lastUsedAt: p.datetime().fieldName('last_used_at').nullable(),
    },
});
//# sourceMappingURL=api-key-entity.js.map