import type { Container } from 'inversify';
import { createHttpApp } from '../../adapters/http/HttpApp.js';
import { PrometheusMetrics } from '../../adapters/http/PrometheusMetrics.js';
import type { Database } from '../../adapters/persistence/Database.js';
import { CheckReadiness } from '../../application/CheckReadiness.js';
import { AdminAuthentication } from '../../application/AdminAuthentication.js';
import { ScryptPasswordHasher } from '../../adapters/crypto/ScryptPasswordHasher.js';
import { SqlAdminStore } from '../../adapters/persistence/SqlAdminStore.js';
import { CollectOperationalFigures } from '../../application/CollectOperationalFigures.js';
import type { Logger } from '../../ports/Logger.js';
import type { TaskQueue } from '../../ports/TaskQueue.js';
import type { AppConfig } from '../config.js';
import { TOKENS } from '../tokens.js';

/** The HTTP application, the admin UI's authentication, and what operators probe: readiness and metrics. */
export const bindHttp = (c: Container, config: AppConfig): void => {
  c.bind(TOKENS.AdminAuthentication).toResolvedValue(
    (db: Database, crypto, ids, clock) => new AdminAuthentication(new SqlAdminStore(db), new ScryptPasswordHasher(), crypto, ids, clock),
    [TOKENS.Database, TOKENS.ApiKeyCrypto, TOKENS.IdGenerator, TOKENS.Clock],
  );
  c.bind(TOKENS.CheckReadiness).toResolvedValue(
    (db: Database, queue: TaskQueue, logger: Logger) =>
      new CheckReadiness([db.readiness(), { name: 'queue', check: async () => void (await queue.depth()) }], logger),
    [TOKENS.Database, TOKENS.TaskQueue, TOKENS.Logger],
  );
  c.bind(TOKENS.HttpApp).toResolvedValue(
    (pino, authenticate, createJob, getJobStatus, fireTriggers, receiveCodehostEvent, registerMessagingWebhook, receiveMessagingUpdate, checkReadiness, queue, jobs, runs, adminAuth, keyAdministration) =>
      createHttpApp({
        adminAuth,
        keyAdministration,
        pino,
        authenticate,
        createJob,
        getJobStatus,
        fireTriggers,
        receiveCodehostEvent,
        registerMessagingWebhook,
        receiveMessagingUpdate,
        checkReadiness,
        metrics: new PrometheusMetrics(new CollectOperationalFigures(queue, jobs, runs), config.metricsToken),
        bodyLimit: config.bodyLimit,
      }),
    [
      TOKENS.Pino,
      TOKENS.AuthenticateApiKey,
      TOKENS.CreateJob,
      TOKENS.GetJobStatus,
      TOKENS.FireTriggers,
      TOKENS.ReceiveCodehostEvent,
      TOKENS.RegisterMessagingWebhook,
      TOKENS.ReceiveMessagingUpdate,
      TOKENS.CheckReadiness,
      TOKENS.TaskQueue,
      TOKENS.JobRepository,
      TOKENS.ActionRunRepository,
      TOKENS.AdminAuthentication,
      TOKENS.KeyAdministration,
    ],
  );
};
