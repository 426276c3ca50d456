import type { Container } from 'inversify';
import type { Database } from '../../adapters/persistence/database.js';
import { MikroOrmAlbumStore } from '../../adapters/persistence/mikro-orm-album-store.js';
import { MikroOrmAdminStore } from '../../adapters/persistence/mikro-orm-admin-store.js';
import { MikroOrmLoginAttempts } from '../../adapters/persistence/mikro-orm-login-attempts.js';
import { FAILURE_WINDOW_MS } from '../../application/auth/admin-authentication.js';
import { ScheduleRetentionSweep } from '../../application/retention/schedule-retention-sweep.js';
import { SweepExpiredData } from '../../application/retention/sweep-expired-data.js';
import type { AppConfig } from '../config.js';
import { TOKENS } from '../tokens.js';

/** Retention: the sweep that deletes expired records, and the schedule that runs it once per period across replicas. */
export const bindRetention = (c: Container, config: AppConfig): void => {
  const { retention } = config;
  c.bind(TOKENS.SweepExpiredData).toResolvedValue(
    // The conversation store as bound (on the embedded engine, behind its cache, which a sweep must clear).
    (db: Database, deliveries, chatTurns, actionRuns, inboundRequests, idempotencyKeys, clock, logger, approvals, scheduleRuns) =>
      new SweepExpiredData(
        {
          adminSessions: new MikroOrmAdminStore(db),
          loginAttempts: new MikroOrmLoginAttempts(db),
          deliveries,
          chatTurns,
          actionRuns,
          inboundRequests,
          idempotencyKeys,
          approvals,
          scheduleRuns,
          chatAlbums: new MikroOrmAlbumStore(db),
        },
        { ...retention, loginWindowMs: FAILURE_WINDOW_MS },
        clock,
        logger.child({ component: 'retention' }),
      ),
    [
      TOKENS.Database,
      TOKENS.DeliveryLog,
      TOKENS.ConversationStore,
      TOKENS.ActionRunRepository,
      TOKENS.InboundRequestStore,
      TOKENS.IdempotencyKeyStore,
      TOKENS.Clock,
      TOKENS.Logger,
      TOKENS.ApprovalStore,
      TOKENS.ScheduleRunRepository,
    ],
  );
  c.bind(TOKENS.ScheduleRetentionSweep).toResolvedValue(
    (queue, clock) => new ScheduleRetentionSweep(queue, clock, retention.sweepIntervalMs),
    [TOKENS.TaskQueue, TOKENS.Clock],
  );
};
