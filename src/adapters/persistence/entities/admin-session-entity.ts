import { defineEntity, p } from '@mikro-orm/core';

/**
 * Mapping of `admin_sessions`: admin UI sessions by the digest of their token
 * (Migration20261123040000_admin), each with the SHA-256 (hex) of the password hash its login
 * checked (Migration20261201000000_admin_session_password; null: made before it, never counts).
 */
export const AdminSessionEntity = defineEntity({
  name: 'AdminSession',
  tableName: 'admin_sessions',
  properties: {
    tokenHash: p.string().columnType('char(64)').primary().fieldName('token_hash'),
    csrfToken: p.string().length(100).fieldName('csrf_token'),
    expiresAt: p.datetime().fieldName('expires_at').index('admin_sessions_expires_at_idx'),
    passwordDigest: p.string().columnType('char(64)').fieldName('password_digest').nullable(),
    createdAt: p.datetime().fieldName('created_at').defaultRaw('now()'),
  },
});
