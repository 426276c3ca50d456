import type { Container } from 'inversify';
import type { Database } from '../../adapters/persistence/database.js';
import { MikroOrmActionRunRepository } from '../../adapters/persistence/mikro-orm-action-run-repository.js';
import { MikroOrmInboundRequestStore } from '../../adapters/persistence/mikro-orm-inbound-request-store.js';
import { MikroOrmTriggerLanes } from '../../adapters/persistence/mikro-orm-trigger-lanes.js';
import { DeliveryHistory } from '../../application/triggers/delivery-history.js';
import { DispatchTriggerRuns } from '../../application/triggers/dispatch-trigger-runs.js';
import { FireTriggers } from '../../application/triggers/fire-triggers.js';
import type { TriggerSource } from '../../application/triggers/trigger-source.js';
import { NodeTimer } from '../../adapters/system/node-timer.js';
import type { Clock } from '../../ports/clock.js';
import type { Headroom } from '../../ports/headroom.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { InboundRequestStore } from '../../ports/inbound-request-store.js';
import type { Logger } from '../../ports/logger.js';
import type { TaskQueue } from '../../ports/task-queue.js';
import type { TriggerLanes } from '../../ports/trigger-lanes.js';
import { watchPathOf, watchPathsOf } from '../../domain/auth/route-policy.js';
import { routeTable } from '../channels/index.js';
import { TOKENS } from '../tokens.js';

type FireTriggersDeps = [TriggerSource, InboundRequestStore, TaskQueue, IdGenerator, Clock, Logger, TriggerLanes, DispatchTriggerRuns];

/** Every watch path naming the endpoint of a stored request's path (a channel's and its alias), for replays. */
const endpointPaths = (watchPath: string): readonly string[] => {
  const route = routeTable().find((candidate) => watchPathOf(candidate) === watchPath);
  return route === undefined ? [watchPath] : watchPathsOf(route);
};

/**
 * The delivery log (stored requests and their runs) and firing triggers: what the CLI's
 * administration container binds too (with the task queue), to list, show and replay deliveries.
 */
export const bindDeliveries = (c: Container): void => {
  c.bind(TOKENS.ActionRunRepository).toResolvedValue((db: Database) => new MikroOrmActionRunRepository(db), [TOKENS.Database]);
  c.bind(TOKENS.InboundRequestStore).toResolvedValue((db: Database) => new MikroOrmInboundRequestStore(db), [TOKENS.Database]);
  c.bind(TOKENS.TriggerLanes).toResolvedValue((db: Database) => new MikroOrmTriggerLanes(db), [TOKENS.Database]);
  c.bind(TOKENS.DispatchTriggerRuns)
    .toResolvedValue(
      (...deps: [TriggerSource, InboundRequestStore, TaskQueue, TriggerLanes, Clock, Logger, Headroom]) => new DispatchTriggerRuns(...deps, new NodeTimer()),
      [TOKENS.Triggers, TOKENS.InboundRequestStore, TOKENS.TaskQueue, TOKENS.TriggerLanes, TOKENS.Clock, TOKENS.Logger, TOKENS.Headroom],
    )
    // Before the queue stops (the service's stop unbinds it later): the running pass finishes.
    .onDeactivation((dispatch) => dispatch.stop());
  c.bind(TOKENS.FireTriggers).toResolvedValue(
    (...deps: FireTriggersDeps) => new FireTriggers(...deps, endpointPaths),
    [
      TOKENS.Triggers,
      TOKENS.InboundRequestStore,
      TOKENS.TaskQueue,
      TOKENS.IdGenerator,
      TOKENS.Clock,
      TOKENS.Logger,
      TOKENS.TriggerLanes,
      TOKENS.DispatchTriggerRuns,
    ],
  );
  c.bind(TOKENS.DeliveryHistory).toResolvedValue(
    (...deps: ConstructorParameters<typeof DeliveryHistory>) => new DeliveryHistory(...deps),
    [TOKENS.InboundRequestStore, TOKENS.ActionRunRepository],
  );
};
