import type { Container } from 'inversify';
import { buildAdministrationContainer } from './build-administration-container.js';
import { bindTaskQueue } from './bindings/core-bindings.js';
import { bindDeliveries } from './bindings/delivery-bindings.js';
import type { AppConfig } from './config.js';
import type { Infrastructure } from './infrastructure.js';
import { Swappable } from './swappable.js';
import { TOKENS } from './tokens.js';

/**
 * The CLI's administration container with the delivery log, for `deliveries …` on a database the
 * CLI opens itself: listing and showing stored requests, and replaying one — which needs the task
 * queue (started when first resolved, so only a replay starts it; the service runs the queued
 * tasks) and the trigger file (`infra.triggers`), bound as the service binds them. Its own module,
 * so that the other commands never load the queue.
 */
export const buildDeliveriesContainer = (config: AppConfig, infra: Infrastructure): Container => {
  const c = buildAdministrationContainer(config, infra);
  c.bind(TOKENS.Triggers).toConstantValue(new Swappable(infra.triggers ?? []));
  // The queues are the service's: their settings come from its environment, not the CLI's.
  bindTaskQueue(c, config, { manageQueues: false });
  bindDeliveries(c);
  return c;
};
