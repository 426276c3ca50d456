import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { constants, createGzip, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import Koa from 'koa';
import { NodeApiKeyCrypto } from '../../../src/adapters/crypto/node-api-key-crypto.js';
import { apiRouter } from '../../../src/adapters/http/api-router.js';
import { apiChecksBeforeBody, apiHandlers, type HandlerDependencies } from '../../../src/adapters/http/handlers.js';
import { requestLog } from '../../../src/adapters/http/middleware/request-log.js';
import { createPino } from '../../../src/adapters/logging/pino-logger.js';
import { SlackChannel } from '../../../src/adapters/messaging/slack/slack-channel.js';
import { slackSignature } from '../../../src/adapters/messaging/slack/slack-signature.js';
import { AuthenticateApiKey } from '../../../src/application/auth/authenticate-api-key.js';
import { MessagingChannels } from '../../../src/application/messaging/messaging-channels.js';
import { ReceiveMessagingUpdate } from '../../../src/application/messaging/receive-messaging-update.js';
import { FireTriggers } from '../../../src/application/triggers/fire-triggers.js';
import { channelCredentialHeaders, routeTable } from '../../../src/container/channels/index.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryBotTokenStore } from '../../fakes/in-memory-bot-token-store.js';
import { InMemoryDeliveryLog } from '../../fakes/in-memory-delivery-log.js';
import { InMemoryInboundRequestStore } from '../../fakes/in-memory-inbound-request-store.js';
import { InMemoryKeyRepository } from '../../fakes/in-memory-key-repository.js';
import { InMemoryTaskQueue } from '../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../fakes/in-memory-trigger-lanes.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';

const SIGNING_SECRET = 'slack-signing-secret';

/** The connections the tests opened: destroyed after each test, answered or not. */
const opened = new Set<Socket>();

/** The first answer written on a connection (status and JSON body), read as soon as it is whole: the connection may stay open. */
const firstAnswer = (port: number, head: string, body: Buffer): Promise<{ status: number; body: unknown }> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    opened.add(socket);
    let received = Buffer.alloc(0);
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const text = received.toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end))?.[1];
      if (end === -1 || length === undefined || received.length < end + 4 + Number(length)) return;
      socket.destroy();
      resolve({ status: Number(text.slice(9, 12)), body: JSON.parse(text.slice(end + 4, end + 4 + Number(length))) as unknown });
    });
    socket.write(Buffer.concat([Buffer.from(head), body]));
  });

/** A kilobyte of gzip that inflates to `bytes` bytes of JSON text, not finished (no trailer): a body that never ends. */
const inflatingStart = async (bytes: number): Promise<Buffer> => {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  gzip.write(`{"type":"event_callback","event":{"text":"${'x'.repeat(bytes)}`);
  await new Promise<void>((resolve) => gzip.flush(constants.Z_SYNC_FLUSH, () => resolve()));
  gzip.destroy();
  return Buffer.concat(out);
};

/**
 * POST /api/messaging/slack/webhook through the service's route table (the channels' bindings),
 * router, handler and Slack's own checks: Slack signs the body and sends no secret header, so the
 * caller is known only once the body is read, and a compressed body — which Slack never sends —
 * is refused before it is read. It was read and inflated up to the body limit first: a kilobyte of
 * gzip inflating to the limit, its end never sent, held that much memory per connection until the
 * request timeout, for anyone (a well-formed signature header and a current timestamp are all the
 * checks before the body).
 */
describe('the Slack webhook and compressed bodies', function () {
  this.timeout(30_000);
  const clock = new FixedClock(new Date('2026-11-30T12:00:00Z'));
  let server: Server;
  let port: number;

  beforeEach(async () => {
    const logger = new RecordingLogger();
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
    const channels = new MessagingChannels([
      {
        platform: new SlackChannel({ apiUrl: 'http://127.0.0.1:9/api', attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 1000 }),
        credentials: new InMemoryBotTokenStore('xoxb-test-token'),
        settings: {
          webhookSecret: SIGNING_SECRET,
          allowedChatIds: new Set(['C0123ABCDEF']),
          variables: { botToken: 'SLACK_BOT_TOKEN', webhookSecret: 'SLACK_SIGNING_SECRET', allowedChats: 'SLACK_ALLOWED_CHANNEL_IDS' },
        },
      },
    ]);
    const receive = new ReceiveMessagingUpdate(channels, new InMemoryDeliveryLog(), queue, fire, clock, logger);
    const routes = routeTable();
    const deps = { routes, credentialHeaders: channelCredentialHeaders(), receiveMessagingUpdate: receive } as unknown as HandlerDependencies;
    const name = 'messaging-webhook:slack';
    const app = new Koa();
    app.silent = true;
    app.use(requestLog(createPino('silent')));
    app.use(
      apiRouter({
        routes,
        credentialHeaders: channelCredentialHeaders(),
        authenticate: new AuthenticateApiKey(new InMemoryKeyRepository(), new NodeApiKeyCrypto(), clock, logger),
        fireTriggers: fire,
        handlers: { [name]: apiHandlers(deps)[name] },
        beforeBody: { [name]: apiChecksBeforeBody(deps)[name] },
        bodyLimit: 64 * 1024,
      }),
    );
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    for (const socket of opened) socket.destroy();
    opened.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const timestamp = (): string => String(Math.floor(clock.now().getTime() / 1000));
  const headers = (contentType: string, extra: string): string =>
    `POST /api/messaging/slack/webhook HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: ${contentType}\r\nx-slack-request-timestamp: ${timestamp()}\r\n${extra}\r\n`;

  it('refuses a gzip body with a 415 before reading it: a kilobyte of gzip inflating to the limit, never finished, is answered at once', async () => {
    const start = await inflatingStart(60 * 1024);
    expect(start.length).to.be.below(1024);
    const answer = await firstAnswer(
      port,
      headers('application/json', `x-slack-signature: v0=${'a'.repeat(64)}\r\ncontent-encoding: gzip\r\ntransfer-encoding: chunked\r\n`),
      Buffer.concat([Buffer.from(`${start.length.toString(16)}\r\n`), start, Buffer.from('\r\n')]),
    );
    expect(answer).to.deep.equal({
      status: 415,
      body: { error: 'This webhook takes no compressed body (Content-Encoding gzip): send it uncompressed, as the platform does' },
    });
  });

  it('refuses a compressed event or interactivity form even when it is whole and signed; takes the same body uncompressed', async () => {
    const challenge = '{"type":"url_verification","challenge":"abc123","token":"x"}';
    const form = `payload=${encodeURIComponent('{"type":"block_actions"}')}`;
    for (const [contentType, body] of [
      ['application/json', challenge],
      ['application/x-www-form-urlencoded', form],
    ] as const) {
      const zipped = gzipSync(body);
      for (const coding of ['gzip', 'deflate', 'br']) {
        const answer = await firstAnswer(
          port,
          headers(
            contentType,
            `x-slack-signature: ${slackSignature(SIGNING_SECRET, timestamp(), body)}\r\ncontent-encoding: ${coding}\r\ncontent-length: ${zipped.length}\r\n`,
          ),
          zipped,
        );
        expect(answer.status, `${contentType} ${coding}`).to.equal(415);
      }
    }
    const plain = await firstAnswer(
      port,
      headers('application/json', `x-slack-signature: ${slackSignature(SIGNING_SECRET, timestamp(), challenge)}\r\ncontent-length: ${challenge.length}\r\n`),
      Buffer.from(challenge),
    );
    expect(plain.status).to.equal(200);
    expect(plain.body).to.deep.include({ challenge: 'abc123' });
  });
});
