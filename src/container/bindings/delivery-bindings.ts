import type { Container } from 'inversify';
import type { Database } from '../../adapters/persistence/database.js';
import { MikroOrmActionRunRepository } from '../../adapters/persistence/mikro-orm-action-run-repository.js';
import { MikroOrmInboundRequestStore } from '../../adapters/persistence/mikro-orm-inbound-request-store.js';
import { MikroOrmTriggerLanes } from '../../adapters/persistence/mikro-orm-trigger-lanes.js';
import { DeliveryHistory } from '../../application/triggers/delivery-history.js';
import { FireTriggers } from '../../application/triggers/fire-triggers.js';
import { TOKENS } from '../tokens.js';

/**
 * The delivery log (stored requests and their runs) and firing triggers: what the CLI's
 * administration container binds too (with the task queue), to list, show and replay deliveries.
 */
export const bindDeliveries = (c: Container): void => {
  c.bind(TOKENS.ActionRunRepository).toResolvedValue((db: Database) => new MikroOrmActionRunRepository(db), [TOKENS.Database]);
  c.bind(TOKENS.InboundRequestStore).toResolvedValue((db: Database) => new MikroOrmInboundRequestStore(db), [TOKENS.Database]);
  c.bind(TOKENS.TriggerLanes).toResolvedValue((db: Database) => new MikroOrmTriggerLanes(db), [TOKENS.Database]);
  c.bind(TOKENS.FireTriggers).toResolvedValue(
    (...deps: ConstructorParameters<typeof FireTriggers>) => new FireTriggers(...deps),
    [TOKENS.Triggers, TOKENS.InboundRequestStore, TOKENS.TaskQueue, TOKENS.IdGenerator, TOKENS.Clock, TOKENS.Logger, TOKENS.TriggerLanes],
  );
  c.bind(TOKENS.DeliveryHistory).toResolvedValue(
    (...deps: ConstructorParameters<typeof DeliveryHistory>) => new DeliveryHistory(...deps),
    [TOKENS.InboundRequestStore, TOKENS.ActionRunRepository],
  );
};
