import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import { CHAT_MESSAGE_QUEUE, type MessagingDelivery, ReceiveMessagingUpdate } from '../../../src/application/messaging/receive-messaging-update.js';
import { FireTriggers, TRIGGER_RUN_QUEUE } from '../../../src/application/triggers/fire-triggers.js';
import { channelCredentialHeaders, routeTable } from '../../../src/container/channels/index.js';
import { triggerCatalog } from '../../../src/container/trigger-catalog.js';
import type { RequestSnapshot } from '../../../src/domain/templates/request-snapshot.js';
import { validateTriggers } from '../../../src/domain/triggers/validate-triggers.js';
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
const VERIFICATION_TOKEN = 'LEGACYVERIFTOKEN123';
const RESPONSE_URL = 'https://hooks.slack.com/actions/T0123/456/SECRETRESPONSEPATH';

/**
 * The Slack webhook through the service's route table (the channels' bindings), router and
 * handler, Slack's own signature check and parsing, and the use case that fires and stores the
 * triggers: what reaches a trigger, and the stored delivery, of Slack's posts.
 */
describe('the Slack webhook keeps Slack’s credentials out of what triggers see and what is stored', () => {
  const clock = new FixedClock(new Date('2026-11-30T12:00:00Z'));
  let server: Server;
  let url: string;
  let requests: InMemoryInboundRequestStore;
  let queue: InMemoryTaskQueue;
  let fire: FireTriggers;
  /** The snapshot each delivery gave its triggers (taken once the delivery was handled, as the use case does). */
  let snapshots: RequestSnapshot[];

  beforeEach(async () => {
    const logger = new RecordingLogger();
    requests = new InMemoryInboundRequestStore();
    queue = new InMemoryTaskQueue();
    snapshots = [];
    const { triggers, problems } = validateTriggers(
      [{ name: 'on-slack', watch_path: '/messaging/slack/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] }],
      'test',
      triggerCatalog(),
    );
    expect(problems).to.deep.equal([]);
    fire = new FireTriggers({ current: () => triggers }, requests, queue, new SequentialIds(), clock, logger, new InMemoryTriggerLanes());
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
    const recording = {
      authorize: (channel: string, headers: Readonly<Record<string, string | undefined>>) => receive.authorize(channel, headers),
      execute: async (delivery: MessagingDelivery) => {
        const answer = await receive.execute(delivery);
        const { request } = delivery.triggers;
        snapshots.push(typeof request === 'function' ? request() : request);
        return answer;
      },
    };
    const routes = routeTable();
    const deps = { routes, credentialHeaders: channelCredentialHeaders(), receiveMessagingUpdate: recording } as unknown as HandlerDependencies;
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
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Posts `body` signed with the app's signing secret, as Slack does. */
  const postSigned = async (body: string, contentType: string) => {
    const timestamp = String(Math.floor(clock.now().getTime() / 1000));
    const response = await fetch(`${url}/api/messaging/slack/webhook`, {
      method: 'POST',
      headers: { 'content-type': contentType, 'x-slack-request-timestamp': timestamp, 'x-slack-signature': slackSignature(SIGNING_SECRET, timestamp, body) },
      body,
    });
    await fire.dispatched();
    return { status: response.status, body: (await response.json()) as unknown };
  };

  const stored = () => [...requests.requests.values()].map((request) => JSON.parse(request.request) as RequestSnapshot);

  it('an event_callback: its verification token is in neither the fired trigger’s request nor the stored delivery; the rest is', async () => {
    const event = {
      token: VERIFICATION_TOKEN,
      team_id: 'T0123',
      api_app_id: 'A0123',
      event: { type: 'message', channel: 'C0123ABCDEF', channel_type: 'channel', user: 'U0123', text: 'hello', ts: '1764504000.000100' },
      type: 'event_callback',
      event_id: 'Ev0123',
      event_time: 1764504000,
    };
    const answer = await postSigned(JSON.stringify(event), 'application/json');
    expect(answer).to.deep.equal({ status: 200, body: { ok: true } });
    // The channel still works without it: the message is queued for its answer, the trigger fired.
    expect(queue.tasks.map((task) => task.queue)).to.have.members([CHAT_MESSAGE_QUEUE, TRIGGER_RUN_QUEUE]);
    const { token: _token, ...rest } = event;
    expect(stored().map((request) => request.body)).to.deep.equal([rest]);
    expect(snapshots.map((snapshot) => snapshot.body)).to.deep.equal([rest]);
    expect(JSON.stringify(stored())).not.to.include(VERIFICATION_TOKEN);
    expect(JSON.stringify(stored())).not.to.include('x-slack-signature');
  });

  it('an interactivity form: the token and response_url inside its `payload` JSON are not in what its triggers would see', async () => {
    const payload = {
      type: 'block_actions',
      token: VERIFICATION_TOKEN,
      response_url: RESPONSE_URL,
      trigger_id: '123.456.abc',
      user: { id: 'U0123', username: 'ada' },
      container: { type: 'message', channel_id: 'C0123ABCDEF', message_ts: '1764504000.000200' },
      channel: { id: 'C0123ABCDEF' },
      message: { ts: '1764504000.000200', text: 'Approve?' },
      actions: [{ type: 'button', value: 'approval:1:yes', action_ts: '1764504001.000300' }],
    };
    const answer = await postSigned(`payload=${encodeURIComponent(JSON.stringify(payload))}`, 'application/x-www-form-urlencoded');
    expect(answer).to.deep.equal({ status: 200, body: { ok: true } });
    expect(snapshots).to.have.length(1);
    const seen = snapshots[0].body as { payload: string };
    const { token: _token, response_url: _responseUrl, ...rest } = payload;
    expect(Object.keys(seen)).to.deep.equal(['payload']);
    expect(JSON.parse(seen.payload)).to.deep.equal(rest);
    expect(JSON.stringify(snapshots)).not.to.include(VERIFICATION_TOKEN);
    expect(JSON.stringify(snapshots)).not.to.include('SECRETRESPONSEPATH');
  });

  it('an interactivity form whose `payload` JSON nests 5 000 levels (within the body limit) or sets __proto__ is a 400, as any other JSON body', async () => {
    const press =
      '{"type":"block_actions","user":{"id":"U0123"},"channel":{"id":"C0123ABCDEF"},"message":{"ts":"1764504000.000200"},"actions":[{"value":"approval:1:yes","action_ts":"1764504001.000300"}]';
    for (const payload of [`${press},"state":${'['.repeat(5000)}${']'.repeat(5000)}}`, `${press},"__proto__":{"isAdmin":true}}`]) {
      const answer = await postSigned(`payload=${encodeURIComponent(payload)}`, 'application/x-www-form-urlencoded');
      expect(answer.status, payload.slice(-40)).to.equal(400);
    }
    expect(queue.tasks).to.deep.equal([]);
  });
});
