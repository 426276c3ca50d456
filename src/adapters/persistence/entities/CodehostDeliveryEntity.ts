import { defineEntity, p } from '@mikro-orm/core';

/** Mapping of `codehost_deliveries`: code-host deliveries already accepted (Migration20261123010000_trigger_runs). */
export const CodehostDeliveryEntity = defineEntity({
  name: 'CodehostDelivery',
  tableName: 'codehost_deliveries',
  properties: {
    deliveryId: p.string().length(200).primary().fieldName('delivery_id'),
    event: p.string().length(100),
    receivedAt: p.datetime().fieldName('received_at'),
  },
});
