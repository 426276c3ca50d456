import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { GithubEvents } from '../../src/adapters/codehost/github-events.js';
import { GithubSignatureVerifier } from '../../src/adapters/codehost/github-signature-verifier.js';
import { NodeApiKeyCrypto } from '../../src/adapters/crypto/node-api-key-crypto.js';
import { apiRouter } from '../../src/adapters/http/api-router.js';
import { apiChecksBeforeBody, apiHandlers, type HandlerDependencies } from '../../src/adapters/http/handlers.js';
import { requestLog } from '../../src/adapters/http/middleware/request-log.js';
import { createPino } from '../../src/adapters/logging/pino-logger.js';
import { AuthenticateApiKey } from '../../src/application/auth/authenticate-api-key.js';
import { ReceiveCodehostEvent } from '../../src/application/codehost/receive-codehost-event.js';
import { FireTriggers } from '../../src/application/triggers/fire-triggers.js';
import { apiRoutes } from '../../src/domain/auth/route-policy.js';
import type { Trigger } from '../../src/domain/triggers/trigger.js';
import type { DeliveryLog } from '../../src/ports/delivery-log.js';
import { FixedClock } from '../fakes/fixed-clock.js';
import { InMemoryInboundRequestStore } from '../fakes/in-memory-inbound-request-store.js';
import { InMemoryJobRepository } from '../fakes/in-memory-job-repository.js';
import { InMemoryKeyRepository } from '../fakes/in-memory-key-repository.js';
import { InMemoryTaskQueue } from '../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../fakes/in-memory-trigger-lanes.js';
import { RecordingLogger } from '../fakes/recording-logger.js';
import { SequentialIds } from '../fakes/sequential-ids.js';

/** A loopback server of POST /api/codehost/webhook alone, through the service's router and handler. */
export interface CodehostWebhookServer {
  readonly url: string;
  /** Where fired triggers queue their runs. */
  readonly queue: InMemoryTaskQueue;
  /** Where fired (and kept) requests are stored. */
  readonly requests: InMemoryInboundRequestStore;
  readonly logger: RecordingLogger;
  /** Resolves once the runs of every request fired so far are queued. */
  dispatched(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves the code-host webhook on a free loopback port with the service's router, request log and
 * handler, GitHub's signature check with `secret`, the given delivery log and triggers, and
 * in-memory fakes for the rest.
 */
export const startCodehostWebhookServer = async (options: {
  readonly secret: string;
  readonly deliveries: DeliveryLog;
  readonly triggers?: readonly Trigger[];
}): Promise<CodehostWebhookServer> => {
  const clock = new FixedClock();
  const logger = new RecordingLogger();
  const queue = new InMemoryTaskQueue();
  const triggers = options.triggers ?? [];
  const requests = new InMemoryInboundRequestStore();
  const fire = new FireTriggers({ current: () => triggers }, requests, queue, new SequentialIds(), clock, logger, new InMemoryTriggerLanes());
  const routes = apiRoutes([]);
  const deps = {
    routes,
    credentialHeaders: [],
    receiveCodehostEvent: new ReceiveCodehostEvent(
      new GithubSignatureVerifier(options.secret),
      options.deliveries,
      fire,
      new GithubEvents(),
      new InMemoryJobRepository(),
      clock,
      logger,
    ),
  } as unknown as HandlerDependencies;
  const app = new Koa();
  app.silent = true;
  app.use(requestLog(createPino('silent')));
  app.use(
    apiRouter({
      routes,
      credentialHeaders: [],
      authenticate: new AuthenticateApiKey(new InMemoryKeyRepository(), new NodeApiKeyCrypto(), clock, logger),
      fireTriggers: fire,
      handlers: { 'codehost-webhook': apiHandlers(deps)['codehost-webhook'] },
      beforeBody: { 'codehost-webhook': apiChecksBeforeBody(deps)['codehost-webhook'] },
      bodyLimit: 64 * 1024,
    }),
  );
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    queue,
    requests,
    logger,
    dispatched: () => fire.dispatched(),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
