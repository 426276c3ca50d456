import type { Container } from 'inversify';
import { createHttpApp } from '../../adapters/http/http-app.js';
import { adminHostsOf } from '../../adapters/http/admin/admin-host.js';
import { PrometheusMetrics } from '../../adapters/http/prometheus-metrics.js';
import type { Database } from '../../adapters/persistence/database.js';
import { CheckReadiness } from '../../application/operations/check-readiness.js';
import { AdminOverview } from '../../application/operations/admin-overview.js';
import { readFileSync } from 'node:fs';
import type { ScheduleRunRepository } from '../../ports/schedule-run-repository.js';
import type { JobRunner } from '../../ports/job-runner.js';
import { PostgresStorageFigures } from '../../adapters/persistence/postgres-storage-figures.js';
import { CollectOperationalFigures } from '../../application/operations/collect-operational-figures.js';
import type { Logger } from '../../ports/logger.js';
import type { InboundRequestStore } from '../../ports/inbound-request-store.js';
import type { TaskQueue } from '../../ports/task-queue.js';
import { channelCredentialHeaders, routeTable } from '../channels/index.js';
import type { AppConfig } from '../config.js';
import { TOKENS } from '../tokens.js';
import { bindAdminAuthentication } from './admin-bindings.js';

/** The HTTP application, the admin UI's authentication, and what operators probe: readiness and metrics. */
export const bindHttp = (c: Container, config: AppConfig): void => {
  bindAdminAuthentication(c);
  c.bind(TOKENS.CheckReadiness).toResolvedValue(
    (db: Database, queue: TaskQueue, logger: Logger) =>
      new CheckReadiness([db.readiness(), { name: 'queue', check: async () => void (await queue.depth()) }], logger),
    [TOKENS.Database, TOKENS.TaskQueue, TOKENS.Logger],
  );
  const startedAt = new Date();
  c.bind(TOKENS.AdminOverview).toResolvedValue(
    (
      triggers,
      runs,
      requests,
      jobs,
      queue,
      channels,
      conversations,
      db: Database,
      runner: JobRunner,
      schedules,
      scheduleRuns,
      calendar,
      reloader,
      fingerprintKey,
    ) =>
      new AdminOverview({
        triggers,
        schedules: { list: schedules, runs: scheduleRuns, calendar, reloadProblems: () => reloader.problems },
        runs,
        requests,
        jobs,
        figures: new CollectOperationalFigures(queue, jobs, runs, undefined, requests),
        storage: new PostgresStorageFigures(db),
        channels,
        conversations,
        facts: { version: packageVersion(), startedAt, databaseEngine: db.engine, jobRunner: runner.kind },
        fingerprintKey,
      }),
    [
      TOKENS.Triggers,
      TOKENS.ActionRunRepository,
      TOKENS.InboundRequestStore,
      TOKENS.JobRepository,
      TOKENS.TaskQueue,
      TOKENS.MessagingChannels,
      TOKENS.ConversationStore,
      TOKENS.Database,
      TOKENS.JobRunner,
      TOKENS.Schedules,
      TOKENS.ScheduleRunRepository,
      TOKENS.CronCalendar,
      TOKENS.ConfigReloader,
      TOKENS.FingerprintKey,
    ],
  );
  c.bind(TOKENS.Metrics).toResolvedValue(
    (queue: TaskQueue, jobs, runs, scheduleRuns: ScheduleRunRepository, requests: InboundRequestStore) =>
      new PrometheusMetrics(new CollectOperationalFigures(queue, jobs, runs, scheduleRuns, requests), config.metricsToken),
    [TOKENS.TaskQueue, TOKENS.JobRepository, TOKENS.ActionRunRepository, TOKENS.ScheduleRunRepository, TOKENS.InboundRequestStore],
  );
  c.bind(TOKENS.HttpApp).toResolvedValue(
    (
      pino,
      authenticate,
      createJob,
      getJobStatus,
      fireTriggers,
      receiveCodehostEvent,
      registerMessagingWebhook,
      receiveMessagingUpdate,
      checkReadiness,
      metrics,
      auth,
      keys,
      overview,
      cancelJob,
      chat,
      logger: Logger,
      deliveries,
      approvals,
      decideApproval,
    ) =>
      createHttpApp({
        routes: routeTable(),
        credentialHeaders: channelCredentialHeaders(),
        admin: {
          auth,
          keys,
          overview,
          cancelJob,
          chat,
          logger,
          deliveries,
          fireTriggers,
          approvals,
          decideApproval,
          approvalTimeoutMs: config.approvalTimeoutMs,
        },
        pino,
        authenticate,
        createJob,
        getJobStatus,
        fireTriggers,
        receiveCodehostEvent,
        registerMessagingWebhook,
        receiveMessagingUpdate,
        checkReadiness,
        metrics,
        bodyLimit: config.bodyLimit,
        trustedProxies: config.trustedProxies,
        // The service's own names; behind a trusted proxy any, unless ADMIN_HOSTS names some.
        adminHosts: adminHostsOf(config),
      }),
    [
      TOKENS.Pino,
      TOKENS.AuthenticateApiKey,
      TOKENS.CreateJobOnce,
      TOKENS.GetJobStatus,
      TOKENS.FireTriggers,
      TOKENS.ReceiveCodehostEvent,
      TOKENS.RegisterMessagingWebhook,
      TOKENS.ReceiveMessagingUpdate,
      TOKENS.CheckReadiness,
      TOKENS.Metrics,
      TOKENS.AdminAuthentication,
      TOKENS.KeyAdministration,
      TOKENS.AdminOverview,
      TOKENS.CancelJob,
      TOKENS.ChatAgent,
      TOKENS.Logger,
      TOKENS.DeliveryHistory,
      TOKENS.ApprovalStore,
      TOKENS.DecideApproval,
    ],
  );
};

/** The version in package.json, read once. */
const packageVersion = (): string => {
  try {
    return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
};
