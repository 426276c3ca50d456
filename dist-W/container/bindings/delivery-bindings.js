import { MikroOrmActionRunRepository } from '../../adapters/persistence/mikro-orm-action-run-repository.js';
import { MikroOrmInboundRequestStore } from '../../adapters/persistence/mikro-orm-inbound-request-store.js';
import { MikroOrmTriggerLanes } from '../../adapters/persistence/mikro-orm-trigger-lanes.js';
import { DeliveryHistory } from '../../application/triggers/delivery-history.js';
import { DispatchTriggerRuns } from '../../application/triggers/dispatch-trigger-runs.js';
import { FireTriggers } from '../../application/triggers/fire-triggers.js';
import { NodeTimer } from '../../adapters/system/node-timer.js';
import { TOKENS } from '../tokens.js';
/**
 * The delivery log (stored requests and their runs) and firing triggers: what the CLI's
 * administration container binds too (with the task queue), to list, show and replay deliveries.
 */
export const bindDeliveries = (c) => {
    c.bind(TOKENS.ActionRunRepository).toResolvedValue((db) => new MikroOrmActionRunRepository(db), [TOKENS.Database]);
    c.bind(TOKENS.InboundRequestStore).toResolvedValue((db) => new MikroOrmInboundRequestStore(db), [TOKENS.Database]);
    c.bind(TOKENS.TriggerLanes).toResolvedValue((db) => new MikroOrmTriggerLanes(db), [TOKENS.Database]);
    c.bind(TOKENS.DispatchTriggerRuns)
        .toResolvedValue((...deps) => new DispatchTriggerRuns(...deps, new NodeTimer()), [TOKENS.Triggers, TOKENS.InboundRequestStore, TOKENS.TaskQueue, TOKENS.TriggerLanes, TOKENS.Clock, TOKENS.Logger, TOKENS.Headroom])
        // Before the queue stops (the service's stop unbinds it later): the running pass finishes.
        .onDeactivation((dispatch) => dispatch.stop());
    c.bind(TOKENS.FireTriggers).toResolvedValue((...deps) => new FireTriggers(...deps), [
        TOKENS.Triggers,
        TOKENS.InboundRequestStore,
        TOKENS.TaskQueue,
        TOKENS.IdGenerator,
        TOKENS.Clock,
        TOKENS.Logger,
        TOKENS.TriggerLanes,
        TOKENS.DispatchTriggerRuns,
    ]);
    c.bind(TOKENS.DeliveryHistory).toResolvedValue((...deps) => new DeliveryHistory(...deps), [TOKENS.InboundRequestStore, TOKENS.ActionRunRepository]);
};
//# sourceMappingURL=delivery-bindings.js.map