import { defineEntity, p } from '@mikro-orm/core';
/**
 * Mapping of `codehost_deliveries`: accepted webhook deliveries, code-host deliveries and chat
 * updates alike (Migration20261123010000_trigger_runs).
 */
export const CodehostDeliveryEntity = defineEntity({
    name: 'CodehostDelivery',
    tableName: 'codehost_deliveries',
    properties: {
        deliveryId: p.string().length(200).primary().fieldName('delivery_id'),
        event: p.string().length(100),
        receivedAt: p.datetime().fieldName('received_at').defaultRaw('now()').index('codehost_deliveries_received_at_idx'),
    },
});
//# sourceMappingURL=codehost-delivery-entity.js.map