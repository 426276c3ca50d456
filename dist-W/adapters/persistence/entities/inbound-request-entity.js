import { defineEntity, p } from '@mikro-orm/core';
/** Mapping of `inbound_requests`: requests that fired triggers (Migration20261124000000_inbound_requests, Migration20261126100000_delivery_log,
 * Migration20261128000000_inbound_requests_dispatched). */
export const InboundRequestEntity = defineEntity({
    name: 'InboundRequest',
    tableName: 'inbound_requests',
    properties: {
        id: p.uuid().primary(),
        watchPath: p.string().length(200).fieldName('watch_path'),
        receivedAt: p.datetime().fieldName('received_at').index('inbound_requests_received_at_idx'),
        triggers: p.json().defaultRaw("'[]'"),
        // Text, not jsonb: it keeps escaped NULs, lone surrogates and key order.
        request: p.text(),
        runs: p.json().defaultRaw("'[]'"),
        replayOf: p.uuid().fieldName('replay_of').nullable(),
        // Whether its trigger runs are queued (Migration20261128000000_inbound_requests_dispatched).
        dispatched: p.boolean().default(true),
    },
    indexes: [
        { name: 'inbound_requests_watch_path_received_at_idx', properties: ['watchPath', 'receivedAt'] },
        // Partial: only the requests whose runs are still to be queued (an expression is compared by name).
        {
            name: 'inbound_requests_undispatched_idx',
            expression: 'create index "inbound_requests_undispatched_idx" on "inbound_requests" ("received_at") where not "dispatched"',
        },
    ],
});
//# sourceMappingURL=inbound-request-entity.js.map