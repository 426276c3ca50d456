import { defineEntity, p } from '@mikro-orm/core';

/**
 * Mapping of `codehost_deliveries`: accepted webhook deliveries, code-host deliveries and chat
 * updates alike (Migration20261123010000_trigger_runs); a code-host delivery's `body_sha256`, the
 * SHA-256 of its signed body (Migration20261130200000_codehost_delivery_bodies).
 */
export const CodehostDeliveryEntity = defineEntity({
  name: 'CodehostDelivery',
  tableName: 'codehost_deliveries',
  properties: {
    deliveryId: p.string().length(200).primary().fieldName('delivery_id'),
    event: p.string().length(100),
    // char(64): a digest has 64 characters; null for chat updates and rows stored before.
    bodySha256: p.string().columnType('char(64)').fieldName('body_sha256').nullable().unique('codehost_deliveries_body_sha256_unique'),
    receivedAt: p.datetime().fieldName('received_at').defaultRaw('now()').index('codehost_deliveries_received_at_idx'),
  },
});
