import { defineEntity, p } from '@mikro-orm/core';

/** Mapping of the `api_keys` table (created by Migration20261123000000_api_keys). */
export const ApiKeyEntity = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.uuid().primary(),
    name: p.string().length(100),
    keyHash: p.string().length(64).fieldName('key_hash').unique(),
    prefix: p.string().length(16),
    createdAt: p.datetime().fieldName('created_at'),
    lastUsedAt: p.datetime().fieldName('last_used_at').nullable(),
  },
});
