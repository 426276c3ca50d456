import { defineEntity, p } from '@mikro-orm/core';
/** Mapping of `admin_login_attempts`: login attempts per client and window (Migration20261124100000_admin_login_attempts). */
export const AdminLoginAttemptEntity = defineEntity({
    name: 'AdminLoginAttempt',
    tableName: 'admin_login_attempts',
    properties: {
        client: p.string().columnType('char(64)').primary(),
        attempts: p.integer(),
        windowStartedAt: p.datetime().fieldName('window_started_at').index('admin_login_attempts_window_idx'),
    },
});
//# sourceMappingURL=admin-login-attempt-entity.js.map