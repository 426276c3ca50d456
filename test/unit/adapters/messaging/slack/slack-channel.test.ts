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
    // A url_verification without its challenge: a 400 naming it, not "Missing event_id".
    for (const body of [
      { type: 'url_verification', token: 't' },
      { type: 'url_verification', challenge: 7 },
    ]) {
      expect(() => channel.handshake(body), JSON.stringify(body)).to.throw(/^Missing challenge: a url_verification carries its challenge as a string$/);
    }
    // Slack's notice that it held events back for a while: acknowledged, nothing to run.
    expect(channel.handshake({ token: 't', type: 'app_rate_limited', team_id: 'T1', minute_rate_limited: 1518467820, api_app_id: 'A1' })).to.deep.equal({
      ok: true,
    });
  });

  describe('approval questions (ask, settle)', () => {
    type Block = { type: string; text?: { type: string; text: string; emoji?: boolean }; elements?: Array<{ type: string; text: unknown }> };
    const BUTTONS = [
      { label: 'Approve', data: 'agw-approve:1' },
      { label: 'Deny', data: 'agw-deny:1' },
    ];
    const sections = (blocks: unknown) => (blocks as Block[]).filter((block) => block.type === 'section').map((block) => block.text!);

    it('the question arrives as plain text: request-made *bold* ~strike~ _x_, mentions and emoji codes are shown as typed, not formatted', async () => {
      const question = 'Approval needed.\n\nAGW_ARG_1="*bold* ~strike~ _x_ <!channel> <@U1> & :tada:"';
      await channel.ask(TOKEN, { chatId: 'C1' }, [{ text: question }], BUTTONS);
      const [call] = fake.of('chat.postMessage');
      expect(sections(call.body.blocks)).to.deep.equal([{ type: 'plain_text', text: question, emoji: false }]);
      // The notification text: escaped, with formatting off.
      expect(call.body.text).to.equal('Approval needed.\n\nAGW_ARG_1="*bold* ~strike~ _x_ &lt;!channel&gt; &lt;@U1&gt; &amp; :tada:"');
      expect(call.body.mrkdwn).to.equal(false);
      const actions = (call.body.blocks as Block[]).find((block) => block.type === 'actions')!;
      expect(actions.elements!.map((button) => button.text)).to.deep.equal([
        { type: 'plain_text', text: 'Approve' },
        { type: 'plain_text', text: 'Deny' },
      ]);
    });

    it('hostile request values (mentions, links, entities) in a verbatim part: the exact request — plain_text sections, escaped notification text, formatting and unfurling off', async () => {
      const value = '@here <!channel> <!everyone> <@U1> <https://evil.example/login|Approve> https://evil.example &amp; & < > #general :tada: *b*';
      const question = [
        { text: 'Approval needed: trigger "' },
        { text: 'deploy', verbatim: 'inline' as const },
        { text: '".\n\n' },
        { text: `AGW_ARG_1="${value}"`, verbatim: 'block' as const },
      ];
      await channel.ask(TOKEN, { chatId: 'C1', topicId: '1700000000.000100' }, question, BUTTONS);
      const [call] = fake.of('chat.postMessage');
      const shown = `Approval needed: trigger "deploy".\n\nAGW_ARG_1="${value}"`;
      expect(call.body).to.deep.equal({
        channel: 'C1',
        thread_ts: '1700000000.000100',
        text: 'Approval needed: trigger "deploy".\n\nAGW_ARG_1="@here &lt;!channel&gt; &lt;!everyone&gt; &lt;@U1&gt; &lt;https://evil.example/login|Approve&gt; https://evil.example &amp;amp; &amp; &lt; &gt; #general :tada: *b*"',
        mrkdwn: false,
        unfurl_links: false,
        unfurl_media: false,
        blocks: [
          { type: 'section', text: { type: 'plain_text', text: shown, emoji: false } },
          {
            type: 'actions',
            elements: [
              { type: 'button', action_id: 'agw-0', text: { type: 'plain_text', text: 'Approve' }, value: 'agw-approve:1', style: 'primary' },
              { type: 'button', action_id: 'agw-1', text: { type: 'plain_text', text: 'Deny' }, value: 'agw-deny:1', style: 'danger' },
            ],
          },
        ],
      });
    });

    it('a question without buttons has no actions block', async () => {
      await channel.ask(TOKEN, { chatId: 'C1' }, [{ text: 'Review it on the Approvals page.' }], []);
      const [call] = fake.of('chat.postMessage');
      expect((call.body.blocks as Block[]).map((block) => block.type)).to.deep.equal(['section']);
    });

    it('a question longer than one section (3 000 characters) goes whole, in sections cut at line breaks', async () => {
      const lines = Array.from({ length: 12 }, (_, i) => `AGW_ARG_${i + 1}="${'v'.repeat(270)}" end-${i + 1}`);
      const question = lines.join('\n');
      expect(question.length).to.be.within(3000, 3500);
      await channel.ask(TOKEN, { chatId: 'C1' }, [{ text: question }], BUTTONS);
      const shown = sections(fake.of('chat.postMessage')[0].body.blocks);
      expect(shown.length).to.equal(2);
      for (const section of shown) expect(section.text.length).to.be.at.most(3000);
      expect(shown.map((section) => section.text).join('\n')).to.equal(question);
    });

    it('settled: the question stays as plain text (Slack hands its text back escaped), the buttons go, the outcome under it', async () => {
      await channel.settle(
        TOKEN,
        { data: 'agw-approve:1', chatId: 'C1', userId: 'U1', messageId: '1700000000.000100', messageText: 'x="*b* ~s~ &lt;@U1&gt; &amp;"' },
        'Approved by Slack @a_b_: trigger "t", action 0 runs now.',
      );
      const [call] = fake.of('chat.update');
      expect(call.body.blocks).to.deep.equal([
        { type: 'section', text: { type: 'plain_text', text: 'x="*b* ~s~ <@U1> &"', emoji: false } },
        { type: 'context', elements: [{ type: 'plain_text', text: 'Approved by Slack @a_b_: trigger "t", action 0 runs now.', emoji: false }] },
      ]);
    });
  });
});

describe('SlackChannel: the JSON of an interactivity form’s `payload`, under the rules of every JSON body', () => {
  const channel = new SlackChannel({ apiUrl: 'http://127.0.0.1:9/api', attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 1000 });
  const press = {
    type: 'block_actions',
    user: { id: 'U0123', username: 'ada' },
    channel: { id: 'C0123ABCDEF' },
    message: { ts: '1764504000.000200', text: 'Approve?' },
    actions: [{ type: 'button', value: 'approval:1:yes', action_ts: '1764504001.000300' }],
  };
  const refusal = (payload: string): unknown => {
    try {
      channel.parse({ payload });
    } catch (error) {
      return error;
    }
    return expect.fail('expected the payload to be refused');
  };

  it('takes a press nested as deep as the limit (64 levels)', () => {
    const nested = JSON.stringify({ ...press, state: { values: JSON.parse(`${'['.repeat(62)}1${']'.repeat(62)}`) } });
    expect(channel.parse({ payload: nested }).choice).to.include({ data: 'approval:1:yes', chatId: 'C0123ABCDEF', userId: 'U0123' });
  });

  it('refuses a payload nested deeper than 64 levels (100 000 too) with a 400, as any JSON body', () => {
    for (const depth of [63, 100_000]) {
      const error = refusal(JSON.stringify({ ...press, state: { values: 0 } }).replace('"values":0', `"values":${'['.repeat(depth)}${']'.repeat(depth)}`));
      expect(error, String(depth)).to.include({ code: 'invalid_input', message: 'The interactivity payload is nested deeper than 64 levels' });
    }
  });

  it('refuses a payload that sets __proto__ (also escaped) with a 400, as any JSON body', () => {
    for (const key of ['__proto__', '\\u005f_proto__']) {
      const payload = JSON.stringify(press).replace('"user":', `"${key}":{"isAdmin":true},"user":`);
      expect(refusal(payload), key).to.include({ code: 'invalid_input', message: 'The interactivity payload is not JSON, or sets __proto__' });
    }
    expect(refusal('{"type":')).to.include({ code: 'invalid_input' });
  });
});
