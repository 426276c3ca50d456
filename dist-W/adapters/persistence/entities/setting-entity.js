import { defineEntity, p } from '@mikro-orm/core';
/** Mapping of `settings`: service settings by key (Migration20261123030000_chat). */
export const SettingEntity = defineEntity({
    name: 'Setting',
    tableName: 'settings',
    properties: {
        key: p.string().length(100).primary(),
        value: p.text(),
        updatedAt: p.datetime().fieldName('updated_at').defaultRaw('now()'),
    },
});
//# sourceMappingURL=setting-entity.js.map