import { expect } from 'chai';
import { classifySlackFailure, type SlackApiError } from '../../../../../src/adapters/messaging/slack/slack-api-error.js';
import { SlackChannel } from '../../../../../src/adapters/messaging/slack/slack-channel.js';
import { startFakeSlack, type FakeSlack } from '../../../../support/fake-slack.js';

const TOKEN = 'xoxb-1-2-unit';

describe('SlackChannel against a loopback fake Web API', () => {
  let fake: FakeSlack;
  let waits: number[];
  let channel: SlackChannel;
  beforeEach(async () => {
    fake = await startFakeSlack([TOKEN]);
    waits = [];
    channel = new SlackChannel({
      apiUrl: fake.url,
      attempts: 3,
      backoffMs: 0,
      maxRetryAfterMs: 30_000,
      timeoutMs: 5000,
      sleep: async (ms) => void waits.push(ms),
    });
  });
  afterEach(() => fake.close());

  const failure = (promise: Promise<unknown>): Promise<SlackApiError> =>
    promise.then(
      () => expect.fail('expected a failure'),
      (error: SlackApiError) => error,
    );

  it('posts in the thread as mrkdwn with the Bearer token, and plain text escaped with formatting off', async () => {
    await channel.sendMessage(TOKEN, { chatId: 'C1', topicId: '1700000000.000100' }, channel.formatReply('**hi** <b>')[0]);
    await channel.sendMessage(TOKEN, { chatId: 'C1' }, { plain: 'a <@U1> & b' });
    expect(fake.of('chat.postMessage').map((call) => [call.token, call.body.channel, call.body.thread_ts, call.body.text, call.body.mrkdwn])).to.deep.equal([
      [TOKEN, 'C1', '1700000000.000100', '*hi* &lt;b&gt;', true],
      [TOKEN, 'C1', undefined, 'a &lt;@U1&gt; &amp; b', false],
    ]);
  });

  it('waits as long as Retry-After asks (bounded), then sends', async () => {
    fake.failNext('chat.postMessage', { status: 429, body: { ok: false, error: 'ratelimited' }, retryAfter: 7 });
    fake.failNext('chat.postMessage', { status: 429, body: { ok: false, error: 'ratelimited' }, retryAfter: 120 });
    await channel.sendMessage(TOKEN, { chatId: 'C1' }, { plain: 'x' });
    expect(waits).to.deep.equal([7000, 30_000]);
    expect(fake.of('chat.postMessage')).to.have.length(3);
  });

  it('classifies {ok: false} answers: a bad token, a refusal, a passing trouble; only the last is tried again', async () => {
    const badToken = await failure(channel.sendMessage('xoxb-wrong', { chatId: 'C1' }, { plain: 'x' }));
    expect(badToken).to.include({ kind: 'unauthorized', error: 'invalid_auth', transient: false });
    expect(badToken.message).to.contain('Unauthorized').and.not.contain('xoxb-wrong');
    fake.failNext('chat.postMessage', { status: 200, body: { ok: false, error: 'not_in_channel' } });
    expect(await failure(channel.sendMessage(TOKEN, { chatId: 'C1' }, { plain: 'x' }))).to.include({ kind: 'refused', error: 'not_in_channel' });
    fake.failNext('chat.postMessage', { status: 200, body: { ok: false, error: 'fatal_error' } });
    await channel.sendMessage(TOKEN, { chatId: 'C1' }, { plain: 'second time' });
    expect(fake.of('chat.postMessage').filter((call) => call.token === TOKEN)).to.have.length(3);
    expect(classifySlackFailure(0, 'network_error')).to.equal('network');
    expect(classifySlackFailure(503, 'unknown_error')).to.equal('unavailable');
    expect(classifySlackFailure(200, 'missing_scope')).to.equal('unauthorized');
  });

  it('acknowledges with the 👀 reaction, once: a second time is no failure', async () => {
    await channel.acknowledge(TOKEN, { chatId: 'C1' }, '1700000000.000100');
    await channel.acknowledge(TOKEN, { chatId: 'C1' }, '1700000000.000100');
    expect(fake.of('reactions.add').map((call) => call.body)).to.deep.equal([
      { channel: 'C1', timestamp: '1700000000.000100', name: 'eyes' },
      { channel: 'C1', timestamp: '1700000000.000100', name: 'eyes' },
    ]);
  });

  it('answers a url_verification with its challenge and acknowledges app_rate_limited, and nothing else', () => {
    expect(channel.handshake({ type: 'url_verification', token: 't', challenge: 'abc123' })).to.deep.equal({ challenge: 'abc123' });
    expect(channel.handshake({ type: 'event_callback', event_id: 'Ev1' })).to.equal(undefined);
    // Slack's notice that it held events back for a while: acknowledged, nothing to run.
    expect(channel.handshake({ token: 't', type: 'app_rate_limited', team_id: 'T1', minute_rate_limited: 1518467820, api_app_id: 'A1' })).to.deep.equal({
      ok: true,
    });
  });
});
