import type { Container } from 'inversify';
import type { Database } from '../../adapters/persistence/database.js';
import { MikroOrmActionRunRepository } from '../../adapters/persistence/mikro-orm-action-run-repository.js';
import { HmacFingerprintKey } from '../../adapters/crypto/hmac-fingerprint-key.js';
import { MikroOrmFingerprintKeyStore } from '../../adapters/persistence/mikro-orm-fingerprint-key-store.js';
import type { FingerprintKey } from '../../ports/fingerprint-key.js';
import { MikroOrmInboundRequestStore } from '../../adapters/persistence/mikro-orm-inbound-request-store.js';
import { MikroOrmTriggerLanes } from '../../adapters/persistence/mikro-orm-trigger-lanes.js';
import { DeliveryHistory } from '../../application/triggers/delivery-history.js';
import { DispatchTriggerRuns } from '../../application/triggers/dispatch-trigger-runs.js';
import { FireTriggers, NO_INTAKE } from '../../application/triggers/fire-triggers.js';
import { afterJournaledRequests, JournaledIntake } from '../../application/triggers/journaled-intake.js';
import { FileIntakeJournal } from '../../adapters/intake/file-intake-journal.js';
import type { ActionRunRepository } from '../../ports/action-run-repository.js';
import type { AppConfig } from '../config.js';
import { earlyIntakeFiles } from '../early-intake-files.js';
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

/** Every watch path naming the endpoint of a stored request's path (a channel's and its alias), for replays and queued runs. */
export const endpointPaths = (watchPath: string): readonly string[] => {
  const route = routeTable().find((candidate) => watchPathOf(candidate) === watchPath);
  return route === undefined ? [watchPath] : watchPathsOf(route);
};

/**
 * The largest size of each of the running service's intake journals: what they hold is also held
 * in memory until it is stored (JournaledIntake), and a few seconds of the bench's load (~5 000
 * requests of ~1 KB a second) fit; past it, requests are stored before their answer.
 */
const RUNNING_JOURNAL_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The delivery log (stored requests and their runs) and firing triggers: what the CLI's
 * administration container binds too (with the task queue), to list, show and replay deliveries.
 */
export const bindDeliveries = (c: Container): void => {
  c.bind(TOKENS.ActionRunRepository).toResolvedValue((db: Database) => new MikroOrmActionRunRepository(db), [TOKENS.Database]);
  // What the action runs' fingerprints are made with: the installation's key, made once and kept in the database.
  c.bind(TOKENS.FingerprintKey).toResolvedValue(
    async (db: Database) => new HmacFingerprintKey(await new MikroOrmFingerprintKeyStore(db).key()),
    [TOKENS.Database],
  );
  c.bind(TOKENS.InboundRequestStore).toResolvedValue((db: Database) => new MikroOrmInboundRequestStore(db), [TOKENS.Database]);
  c.bind(TOKENS.TriggerLanes).toResolvedValue((db: Database) => new MikroOrmTriggerLanes(db), [TOKENS.Database]);
  c.bind(TOKENS.DispatchTriggerRuns)
    .toResolvedValue(
      (...deps: [TriggerSource, InboundRequestStore, TaskQueue, TriggerLanes, Clock, Logger, Headroom]) => new DispatchTriggerRuns(...deps, new NodeTimer()),
      [TOKENS.Triggers, TOKENS.InboundRequestStore, TOKENS.TaskQueue, TOKENS.TriggerLanes, TOKENS.Clock, TOKENS.Logger, TOKENS.Headroom],
    )
    // Before the queue stops (the service's stop unbinds it later): the running pass finishes.
    .onDeactivation((dispatch) => dispatch.stop());
  // On the embedded database a request that fires triggers is made durable in a journal before
  // its answer, and stored in the database right after (JournaledIntake); it takes requests once
  // the service started it (Gateway.start, after storing what the journals held).
  c.bind(TOKENS.IntakeJournals).toResolvedValue(
    (db: Database, config: AppConfig) =>
      db.engine === 'pglite' ? earlyIntakeFiles(config.dataDir).requests.map((file) => new FileIntakeJournal(file, RUNNING_JOURNAL_MAX_BYTES)) : [],
    [TOKENS.Database, TOKENS.Config],
  );
  c.bind(TOKENS.JournaledIntake).toResolvedValue(
    (journals: readonly FileIntakeJournal[], store: InboundRequestStore, dispatch: DispatchTriggerRuns, logger: Logger) =>
      journals.length === 2 ? new JournaledIntake([journals[0], journals[1]], store, dispatch, logger) : null,
    [TOKENS.IntakeJournals, TOKENS.InboundRequestStore, TOKENS.DispatchTriggerRuns, TOKENS.Logger],
  );
  c.bind(TOKENS.FireTriggers).toResolvedValue(
    (...deps: [...FireTriggersDeps, JournaledIntake | null, FingerprintKey]) =>
      new FireTriggers(...(deps.slice(0, 8) as FireTriggersDeps), endpointPaths, deps[8] ?? NO_INTAKE, deps[9]),
    [
      TOKENS.Triggers,
      TOKENS.InboundRequestStore,
      TOKENS.TaskQueue,
      TOKENS.IdGenerator,
      TOKENS.Clock,
      TOKENS.Logger,
      TOKENS.TriggerLanes,
      TOKENS.DispatchTriggerRuns,
      TOKENS.JournaledIntake,
      TOKENS.FingerprintKey,
    ],
  );
  // Its readers see a request answered from the journal once it is stored, and wait for it.
  c.bind(TOKENS.DeliveryHistory).toResolvedValue(
    (store: InboundRequestStore, runs: ActionRunRepository, intake: JournaledIntake | null) =>
      new DeliveryHistory(intake === null ? store : afterJournaledRequests(store, intake), runs),
    [TOKENS.InboundRequestStore, TOKENS.ActionRunRepository, TOKENS.JournaledIntake],
  );
};
