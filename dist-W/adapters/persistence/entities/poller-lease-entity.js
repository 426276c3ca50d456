import { defineEntity, p } from '@mikro-orm/core';
/** Mapping of `poller_leases`: who polls a platform, until when, and how far (Migration20261127000000_poller_leases). */
export const PollerLeaseEntity = defineEntity({
    name: 'PollerLease',
    tableName: 'poller_leases',
    properties: {
        name: p.string().length(100).primary(),
        holder: p.string().length(100).nullable(),
        expiresAt: p.datetime().fieldName('expires_at').nullable(),
        cursor: p.text().nullable(),
    },
});
//# sourceMappingURL=poller-lease-entity.js.map