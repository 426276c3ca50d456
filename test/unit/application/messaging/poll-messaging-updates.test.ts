import { expect } from 'chai';
import { MessagingChannels, type ChatChannel } from '../../../../src/application/messaging/messaging-channels.js';
import { PollMessagingUpdates, pollerName, type Delay } from '../../../../src/application/messaging/poll-messaging-updates.js';
import { CHAT_MESSAGE_QUEUE, ReceiveMessagingUpdate, type ChatMessageTask } from '../../../../src/application/messaging/receive-messaging-update.js';
import { FireTriggers, TRIGGER_RUN_QUEUE, type TriggerRunTask } from '../../../../src/application/triggers/fire-triggers.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import type { DeliveryPolling, PolledDelivery } from '../../../../src/ports/messaging-channel.js';
import { FakeMessagingChannel, type FakeDelivery } from '../../../fakes/fake-messaging-channel.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryBotTokenStore } from '../../../fakes/in-memory-bot-token-store.js';
import { InMemoryDeliveryLog } from '../../../fakes/in-memory-delivery-log.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryPollerLease } from '../../../fakes/in-memory-poller-lease.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';
import { InMemoryTriggerLanes } from '../../../fakes/in-memory-trigger-lanes.js';
import { waitFor } from '../../../support/http.js';

/** A platform's long poll in memory: deliveries numbered from 1; a poll from cursor n returns those from n on, or waits for one (or the abort). */
class FakePolling implements DeliveryPolling {
  readonly deliveries: FakeDelivery[] = [];
  readonly polls: Array<string | undefined> = [];
  readonly waiting: Array<() => void> = [];
  webhookStops = 0;
  failures: Array<Error & { status?: number }> = [];

  push(text: string): void {
    const id = String(this.deliveries.length + 1);
    this.deliveries.push({ id, message: { chat: '42', id: `m${id}`, text } });
    for (const wake of this.waiting.splice(0)) wake();
  }

  async stopWebhook(): Promise<void> {
    this.webhookStops++;
  }

  async poll(_token: string, cursor: string | undefined, _waitSeconds: number, signal: AbortSignal): Promise<PolledDelivery[]> {
    this.polls.push(cursor);
    const failure = this.failures.shift();
    if (failure) throw failure;
    const pending = () => this.deliveries.filter((delivery) => Number(delivery.id) >= Number(cursor ?? 1));
    if (pending().length === 0) {
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve);
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      signal.throwIfAborted();
    }
    return pending().map((delivery) => ({ body: delivery, next: String(Number(delivery.id) + 1) }));
  }
}

class PollingChannel extends FakeMessagingChannel {
  constructor(readonly polling: FakePolling) {
    super({ id: 'fake' });
  }
}

const catalog = { watchPaths: ['/messaging/fake/webhook', '/messaging/webhook'], llmProviders: [] };
const { triggers } = validateTriggers(
  [{ name: 'on-chat', watch_path: '/messaging/fake/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] }],
  'test',
  catalog,
);

const conflict = (): Error & { status: number } => Object.assign(new Error('Conflict: terminated by other getUpdates request'), { status: 409 });

describe('PollMessagingUpdates', () => {
  /** One gateway's world: the platform, database-backed stores (shared between "replicas" by passing them in) and a poller. */
  const make = (
    shared?: { lease: InMemoryPollerLease; deliveries: InMemoryDeliveryLog; queue: InMemoryTaskQueue; polling: FakePolling },
    clock = new FixedClock(),
  ) => {
    const logger = new RecordingLogger();
    const lease = shared?.lease ?? new InMemoryPollerLease();
    const deliveries = shared?.deliveries ?? new InMemoryDeliveryLog();
    const queue = shared?.queue ?? new InMemoryTaskQueue();
    const polling = shared?.polling ?? new FakePolling();
    const channel: ChatChannel = {
      platform: new PollingChannel(polling),
      credentials: new InMemoryBotTokenStore('bot-token'),
      settings: {
        webhookSecret: undefined,
        allowedChatIds: new Set(['42']),
        mode: 'polling',
        variables: { botToken: 'FAKE_BOT_TOKEN', webhookSecret: 'FAKE_WEBHOOK_SECRET', allowedChats: 'FAKE_CHATS', mode: 'FAKE_MODE' },
      },
    };
    const channels = new MessagingChannels([channel]);
    const fire = new FireTriggers(triggers, new InMemoryInboundRequestStore(), queue, new SequentialIds(), clock, logger, new InMemoryTriggerLanes());
    const receive = new ReceiveMessagingUpdate(channels, deliveries, queue, fire, clock, logger);
    const delays: number[] = [];
    // Records the wait and yields to the event loop instead of waiting.
    const delay: Delay = (ms) => {
      delays.push(ms);
      return new Promise((resolve) => setImmediate(resolve));
    };
    const settings = { waitSeconds: 30, leaseMs: 90_000, standbyMs: 10_000, backoffMs: (failures: number) => 1000 * 2 ** (failures - 1) };
    const holder = `replica-${Math.random()}`;
    const poller = new PollMessagingUpdates(channels, receive, lease, clock, logger, delay, settings, holder, () => [
      '/messaging/fake/webhook',
      '/messaging/webhook',
    ]);
    const stop = new AbortController();
    const run = () => poller.execute(stop.signal);
    const chatTexts = () => queue.tasks.filter((t) => t.queue === CHAT_MESSAGE_QUEUE).map((t) => (t.payload as ChatMessageTask).message.text);
    const triggerRuns = () => queue.tasks.filter((t) => t.queue === TRIGGER_RUN_QUEUE).map((t) => (t.payload as TriggerRunTask).trigger);
    return {
      fire,
      lease,
      deliveries,
      queue,
      polling,
      poller,
      stop,
      run,
      delays,
      chatTexts,
      triggerRuns,
      holder,
      logger,
      shared: { lease, deliveries, queue, polling },
    };
  };

  it('takes polled updates in as the webhook does: stored once as chat tasks, the webhook triggers fired, the position stored', async () => {
    const world = make();
    world.polling.push('first');
    world.polling.push('second');
    const running = world.run();
    await waitFor(() => world.chatTexts().length === 2, 5000, 'two chat tasks');
    world.polling.push('third');
    await waitFor(() => world.chatTexts().length === 3, 5000, 'a third chat task');
    world.stop.abort();
    await running;
    await world.fire.dispatched();
    expect(world.chatTexts()).to.deep.equal(['first', 'second', 'third']);
    expect(world.triggerRuns()).to.deep.equal(['on-chat', 'on-chat', 'on-chat']);
    expect(world.polling.webhookStops, 'the webhook removed once, before the first poll').to.equal(1);
    expect(world.polling.polls.slice(0, 2)).to.deep.equal([undefined, '3']);
    expect(await world.lease.cursor(pollerName('fake'))).to.equal('4');
  });

  it('starts where the last run stopped: after a restart no update is taken in twice', async () => {
    const first = make();
    first.polling.push('before the restart');
    const running = first.run();
    await waitFor(() => first.chatTexts().length === 1, 5000, 'the first chat task');
    first.stop.abort();
    await running;
    first.polling.push('after the restart');
    const second = make(first.shared);
    const again = second.run();
    await waitFor(() => second.chatTexts().length === 2, 5000, 'the second chat task');
    second.stop.abort();
    await again;
    expect(second.chatTexts()).to.deep.equal(['before the restart', 'after the restart']);
    expect(second.polling.polls.at(-2), 'the restarted poller asks from the stored position').to.equal('2');
  });

  it('polls on one replica only: the other stands by, and every update is taken in once', async () => {
    const a = make();
    const b = make(a.shared);
    const runs = [a.run(), b.run()];
    for (const text of ['one', 'two', 'three']) a.polling.push(text);
    await waitFor(() => a.chatTexts().length === 3, 5000, 'three chat tasks');
    await waitFor(() => b.delays.length + a.delays.length > 0, 5000, 'a replica standing by');
    a.stop.abort();
    b.stop.abort();
    await Promise.all(runs);
    expect(a.chatTexts()).to.deep.equal(['one', 'two', 'three']);
    expect(a.polling.webhookStops, 'one poller removed the webhook').to.equal(1);
    expect(
      [...a.delays, ...b.delays].every((ms) => ms === 10_000),
      'the waits are standby waits',
    ).to.equal(true);
  });

  it('takes over when the polling replica stopped and gave the lease up', async () => {
    const a = make();
    const b = make(a.shared);
    a.polling.push('to a');
    const runA = a.run();
    await waitFor(() => a.chatTexts().length === 1, 5000, 'a polling');
    const runB = b.run();
    await waitFor(() => b.delays.includes(10_000), 5000, 'b standing by');
    a.stop.abort();
    await runA;
    a.polling.push('to b');
    await waitFor(() => b.chatTexts().length === 2, 5000, 'b taking over');
    b.stop.abort();
    await runB;
    expect(b.chatTexts()).to.deep.equal(['to a', 'to b']);
  });

  it('takes over from a replica that died without giving the lease up, once its lease expired, from the stored position', async () => {
    const clock = new FixedClock();
    const world = make(undefined, clock);
    // A replica polled up to update 1, then died: its lease is still held for 90 s.
    await world.lease.acquire(pollerName('fake'), 'dead replica', clock.now(), 90_000);
    await world.lease.advance(pollerName('fake'), 'dead replica', '2', clock.now());
    world.polling.push('answered before the crash');
    world.polling.push('sent after the crash');
    const running = world.run();
    await waitFor(() => world.delays.length >= 2, 5000, 'standing by');
    expect(world.polling.polls, 'no poll while the dead replica holds the lease').to.deep.equal([]);
    clock.advance(90_000);
    await waitFor(() => world.chatTexts().length === 1, 5000, 'the takeover');
    world.stop.abort();
    await running;
    expect(world.chatTexts()).to.deep.equal(['sent after the crash']);
    expect(world.polling.polls[0]).to.equal('2');
  });

  it('backs off after failures (longer each time), removes the webhook again after a conflict, then goes on', async () => {
    const world = make();
    world.polling.failures.push(conflict(), conflict(), Object.assign(new Error('network error'), { status: 0 }));
    world.polling.push('after the failures');
    const running = world.run();
    await waitFor(() => world.chatTexts().length === 1, 5000, 'the update after the failures');
    world.stop.abort();
    await running;
    expect(world.delays).to.deep.equal([1000, 2000, 4000]);
    expect(world.polling.webhookStops).to.equal(3);
    expect(world.logger.entries.filter((entry) => entry.message === 'polling for updates failed')).to.have.length(3);
  });

  it('stops promptly during a long poll and gives the lease up, so that another replica can poll at once', async () => {
    const world = make();
    const running = world.run();
    await waitFor(() => world.polling.waiting.length === 1, 5000, 'a long poll waiting');
    world.stop.abort();
    await running;
    expect(await world.lease.acquire(pollerName('fake'), 'another replica', new Date('2026-01-01T00:00:01Z'), 90_000)).to.equal(true);
  });

  it('does not poll channels in webhook mode', async () => {
    const world = make();
    const webhookOnly = new PollMessagingUpdates(
      new MessagingChannels([
        {
          platform: new PollingChannel(world.polling),
          credentials: new InMemoryBotTokenStore('bot-token'),
          settings: { webhookSecret: 's', allowedChatIds: new Set(), variables: { botToken: 'A', webhookSecret: 'B', allowedChats: 'C' } },
        },
      ]),
      {} as ReceiveMessagingUpdate,
      world.lease,
      new FixedClock(),
      new RecordingLogger(),
      async () => undefined,
      { waitSeconds: 1, leaseMs: 1, standbyMs: 1, backoffMs: () => 1 },
      'h',
      () => [],
    );
    expect(webhookOnly.polled).to.deep.equal([]);
    await webhookOnly.execute(new AbortController().signal);
    expect(world.polling.polls).to.deep.equal([]);
  });
});
