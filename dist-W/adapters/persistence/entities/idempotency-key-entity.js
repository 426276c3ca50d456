import { defineEntity, p } from '@mikro-orm/core';
/** Mapping of `idempotency_keys` (Migration20261126173000_idempotency_keys): one row per caller and key. */
export const IdempotencyKeyEntity = defineEntity({
    name: 'IdempotencyKey',
    tableName: 'idempotency_keys',
    properties: {
        scope: p.string().length(64).primary(),
        key: p.string().length(255).primary().fieldName('idempotency_key'),
        fingerprint: p.string().columnType('char(64)'),
        jobId: p.uuid().fieldName('job_id'),
        createdAt: p.datetime().fieldName('created_at').index('idempotency_keys_created_at_idx'),
    },
});
//# sourceMappingURL=idempotency-key-entity.js.map