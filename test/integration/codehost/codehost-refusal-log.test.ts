import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { GithubEvents } from '../../../src/adapters/codehost/github-events.js';
import { GithubSignatureVerifier } from '../../../src/adapters/codehost/github-signature-verifier.js';
import { NodeApiKeyCrypto } from '../../../src/adapters/crypto/node-api-key-crypto.js';
import { apiRouter } from '../../../src/adapters/http/api-router.js';
import { apiChecksBeforeBody, apiHandlers, type HandlerDependencies } from '../../../src/adapters/http/handlers.js';
import { requestLog } from '../../../src/adapters/http/middleware/request-log.js';
import { createPino } from '../../../src/adapters/logging/pino-logger.js';
import { AuthenticateApiKey } from '../../../src/application/auth/authenticate-api-key.js';
import { ReceiveCodehostEvent } from '../../../src/application/codehost/receive-codehost-event.js';
import { FireTriggers } from '../../../src/application/triggers/fire-triggers.js';
import { apiRoutes } from '../../../src/domain/auth/route-policy.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryDeliveryLog } from '../../fakes/in-memory-delivery-log.js';
import { InMemoryInboundRequestStore } from '../../fakes/in-memory-inbound-request-store.js';
import { InMemoryJobRepository } from '../../fakes/in-memory-job-repository.js';
import { InMemoryKeyRepository } from '../../fakes/in-memory-key-repository.js';
import { InMemoryTaskQueue } from '../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../fakes/in-memory-trigger-lanes.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';

const SECRET = 'refusal-log-secret';

/**
 * POST /api/codehost/webhook through the service's router and handler: a refused request's
 * `X-GitHub-Event` header is unsigned and anyone's, up to Node's header limit (16 KB). Each
 * refused request writes one warning of bounded size, whatever that header holds.
 */
describe('the warning of a refused code-host delivery', function () {
  this.timeout(30_000);
  let server: Server;
  let url: string;
  let logger: RecordingLogger;

  beforeEach(async () => {
    const clock = new FixedClock();
    logger = new RecordingLogger();
    const queue = new InMemoryTaskQueue();
    const fire = new FireTriggers(
      { current: () => [] },
      new InMemoryInboundRequestStore(),
      queue,
      new SequentialIds(),
      clock,
      logger,
      new InMemoryTriggerLanes(),
    );
    const routes = apiRoutes([]);
    const deps = {
      routes,
      credentialHeaders: [],
      receiveCodehostEvent: new ReceiveCodehostEvent(
        new GithubSignatureVerifier(SECRET),
        new InMemoryDeliveryLog(),
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
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const body = '{"zen":"hi"}';
  const post = async (event: string, signature: string | undefined): Promise<number> => {
    const response = await fetch(`${url}/api/codehost/webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': event,
        'x-github-delivery': 'd-1',
        ...(signature && { 'x-hub-signature-256': signature }),
      },
      body,
    });
    await response.arrayBuffer();
    return response.status;
  };
  const refusals = () => logger.entries.filter((entry) => entry.message === 'code-host delivery refused');

  it('shows at most 100 characters of a long event header, marked as cut, once per request', async () => {
    const event = `${'e'.repeat(100)}${'x'.repeat(14_900)}`;
    const forged = `sha256=${createHmac('sha256', 'a guess').update(body).digest('hex')}`;
    // Refused before the body is read (no signature), then after it (a wrong one).
    expect(await post(event, undefined)).to.equal(401);
    expect(await post(event, forged)).to.equal(401);
    expect(await post(event, 'sha256=00')).to.equal(401);

    const lines = refusals();
    expect(lines).to.have.length(3);
    for (const line of lines) {
      expect(line.level).to.equal('warn');
      expect(line.fields).to.have.all.keys('event', 'reason');
      expect((line.fields as { event: string }).event).to.equal(`${'e'.repeat(100)}…[cut: 15000 characters]`);
      expect(JSON.stringify(line.fields).length).to.be.below(300);
    }
  });

  it('shows a short event header whole', async () => {
    expect(await post('push', undefined)).to.equal(401);
    expect(await post('e'.repeat(100), 'sha256=00')).to.equal(401);
    expect(refusals().map((line) => (line.fields as { event: string }).event)).to.deep.equal(['push', 'e'.repeat(100)]);
  });
});
