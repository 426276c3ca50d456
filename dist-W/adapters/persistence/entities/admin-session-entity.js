import { defineEntity, p } from '@mikro-orm/core';
/** Mapping of `admin_sessions`: admin UI sessions by the digest of their token (Migration20261123040000_admin). */
export const AdminSessionEntity = defineEntity({
    name: 'AdminSession',
    tableName: 'admin_sessions',
    properties: {
        tokenHash: p.string().columnType('char(64)').primary().fieldName('token_hash'),
        csrfToken: p.string().length(100).fieldName('csrf_token'),
        expiresAt: p.datetime().fieldName('expires_at').index('admin_sessions_expires_at_idx'),
        createdAt: p.datetime().fieldName('created_at').defaultRaw('now()'),
    },
});
//# sourceMappingURL=admin-session-entity.js.map