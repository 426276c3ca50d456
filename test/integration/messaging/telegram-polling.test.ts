import { expect } from 'chai';
import { TelegramChannel } from '../../../src/adapters/messaging/telegram/telegram-channel.js';
import { startFakeTelegram, type FakeTelegram } from '../../support/fake-telegram.js';
import { waitFor } from '../../support/http.js';

const TOKEN = '123456:POLLING-token';

const failure = (promise: Promise<unknown>): Promise<(Error & { status?: number; description?: string }) | undefined> =>
  promise.then(
    () => undefined,
    (e: Error) => e,
  );

const message = (text: string) => ({
  message: { message_id: 1, date: 0, chat: { id: 5, type: 'private' }, from: { id: 5, is_bot: false, first_name: 'A' }, text },
});

describe('TelegramChannel: long polling (getUpdates) against the fake Bot API', function () {
  this.timeout(20_000);
  let tg: FakeTelegram;
  let channel: TelegramChannel;
  beforeEach(async () => {
    tg = await startFakeTelegram([TOKEN]);
    channel = new TelegramChannel({ apiUrl: tg.url, attempts: 2, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 5000 });
  });
  afterEach(async () => tg.close());

  it('returns the waiting updates with the cursor past each; polling from a cursor confirms what came before', async () => {
    const first = tg.pushUpdate(message('one'));
    tg.pushUpdate(message('two'));
    const polled = await channel.poll(TOKEN, undefined, 10, new AbortController().signal);
    expect(polled.map((delivery) => (delivery.body as { update_id: number }).update_id)).to.deep.equal([first, first + 1]);
    expect(polled.map((delivery) => delivery.next)).to.deep.equal([String(first + 1), String(first + 2)]);
    expect(channel.parse(polled[1].body).message?.text).to.equal('two');
    const [call] = tg.of('getUpdates');
    expect(call.body).to.deep.include({ timeout: 10, allowed_updates: ['message', 'edited_message', 'channel_post', 'edited_channel_post', 'callback_query'] });
    expect(call.body).not.to.have.property('offset');
    tg.pushUpdate(message('three'));
    const next = await channel.poll(TOKEN, polled[1].next, 10, new AbortController().signal);
    expect(next.map((delivery) => channel.parse(delivery.body).message?.text)).to.deep.equal(['three']);
    expect(tg.of('getUpdates')[1].body).to.include({ offset: first + 2 });
    expect(tg.pendingUpdates).to.have.length(1);
  });

  it('waits for an update (long polling) and answers as soon as one comes', async () => {
    const started = Date.now();
    const polling = channel.poll(TOKEN, undefined, 10, new AbortController().signal);
    setTimeout(() => tg.pushUpdate(message('late')), 300);
    const polled = await polling;
    expect(polled).to.have.length(1);
    expect(Date.now() - started).to.be.within(250, 5000);
  });

  it('is refused (409) while a webhook is set, and polls once stopWebhook removed it', async () => {
    await channel.setWebhook(TOKEN, 'https://gateway.example.com/hook', 'secret');
    const refused = await failure(channel.poll(TOKEN, undefined, 0, new AbortController().signal));
    expect(refused).to.include({ status: 409 });
    await channel.stopWebhook(TOKEN);
    expect(tg.webhookUrl).to.equal('');
    expect(tg.of('deleteWebhook')[0].body).to.deep.equal({ drop_pending_updates: false });
    expect(await channel.poll(TOKEN, undefined, 0, new AbortController().signal)).to.deep.equal([]);
  });

  it('ends a waiting poll at once when aborted (shutdown), with the abort and not a platform error', async () => {
    const stop = new AbortController();
    const polling = failure(channel.poll(TOKEN, undefined, 30, stop.signal));
    await waitFor(() => tg.of('getUpdates').length === 1, 5000, 'the poll to reach the platform');
    const started = Date.now();
    stop.abort(new Error('stopping'));
    const error = await polling;
    expect(error?.message).to.equal('stopping');
    // at once, not at the end of the 30 s poll (any machine load aside; the channel contract's bound)
    expect(Date.now() - started).to.be.below(5000);
  });

  it('reports the conflict (409) when another poller takes over, as Telegram ends the older poll', async () => {
    const older = failure(channel.poll(TOKEN, undefined, 30, new AbortController().signal));
    await waitFor(() => tg.of('getUpdates').length === 1, 5000, 'the poll to reach the platform');
    const newer = channel.poll(TOKEN, undefined, 0, new AbortController().signal);
    expect(await older).to.include({ status: 409 });
    expect(await newer).to.deep.equal([]);
  });
});
