import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { adminClient, setAdminPassword } from '../support/admin-http.js';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-open-ai.js';
import { startFakeSlack, type FakeSlack, type SlackCall } from '../support/fake-slack.js';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey, queuesDrained, send, waitFor, type JsonResponse } from '../support/http.js';

/*
 * End-to-end: Slack as a chat channel on the BUILT server (`node dist/main.js`) with the
 * embedded database, a loopback fake Slack Web API (SLACK_API_URL) and a loopback fake
 * OpenAI-compatible model. Events are signed as Slack signs them (v0 HMAC-SHA256 of
 * `v0:<timestamp>:<raw body>` with the signing secret) and posted to /api/messaging/slack/webhook;
 * what the user would see is what the fake Web API records (chat.postMessage, reactions.add).
 * A trigger watches /messaging/slack/webhook and appends a line per firing to a file.
 *
 * A second gateway has no Slack variables at all: its Slack route refuses everything (fail closed).
 */

const TOKEN = 'xoxb-1234567890-0987654321-e2eSlackBotToken';
const SIGNING_SECRET = '8f742231b10e8888abcd99e2eslacksecret';
const WEBHOOK = '/api/messaging/slack/webhook';
const ALLOWED = {
  conversation: 'C0CONVERSE',
  thread: 'C0THREAD',
  signature: 'C0SIGNATURE',
  retry: 'C0RETRY',
  long: 'C0LONG',
  job: 'C0JOB',
  mention: 'C0MENTION',
  ignored: 'C0IGNORED',
  logs: 'C0LOGS',
};
const NOT_ALLOWED = 'C0STRANGER';

let nextEvent = 1;
let nextTs = 1_767_225_600;

interface SlackEvent {
  readonly body: Record<string, unknown>;
  readonly eventId: string;
  readonly ts: string;
}

/** An Events API `event_callback` carrying a person's message, as Slack sends it. */
const messageEvent = (channel: string, text: string, extra: Record<string, unknown> = {}): SlackEvent => {
  const eventId = `Ev0E2E${String(nextEvent++).padStart(6, '0')}`;
  const ts = `${nextTs++}.000100`;
  return {
    eventId,
    ts,
    body: {
      token: 'legacy-verification-token',
      team_id: 'T0E2E',
      api_app_id: 'A0E2E',
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: 'T0E2E', user_id: 'U0BOT', is_bot: true }],
      event: { type: 'message', channel, channel_type: 'channel', user: 'U0ADA', text, ts, event_ts: ts, ...extra },
    },
  };
};

const signature = (raw: string, timestamp: number, secret = SIGNING_SECRET): string =>
  `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${raw}`).digest('hex')}`;

/** POSTs a body as Slack does: signed now (or as `options` say); measures the answer time. */
const post = async (
  gateway: GatewayProcess,
  body: unknown,
  options: { secret?: string; ageSeconds?: number; unsigned?: boolean; headers?: Record<string, string> } = {},
): Promise<JsonResponse & { ms: number }> => {
  const raw = JSON.stringify(body);
  const timestamp = Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (!options.unsigned) {
    headers['x-slack-request-timestamp'] = String(timestamp);
    headers['x-slack-signature'] = signature(raw, timestamp, options.secret);
  }
  const started = Date.now();
  const response = await send(`${gateway.url}${WEBHOOK}`, { method: 'POST', headers, body: raw });
  return { ...response, ms: Date.now() - started };
};

const postsTo = (fake: FakeSlack, channel: string): SlackCall[] => fake.of('chat.postMessage').filter((call) => call.body.channel === channel);
const waitForPosts = (fake: FakeSlack, channel: string, count = 1, ms = 20_000): Promise<SlackCall[]> =>
  waitFor(() => (postsTo(fake, channel).length >= count ? postsTo(fake, channel) : undefined), ms, `${count} message(s) to ${channel}`);

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { type?: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
  return '';
};
/** The user turns of a model request, their text (inside its untrusted block). */
const userTexts = (request: FakeOpenAi['requests'][number]): string[] =>
  request.messages
    .filter((m) => m.role === 'user')
    .map((m) => textOf(m.content).replace(/^<untrusted-input-[0-9a-f]{32}[^>]*>|<\/untrusted-input-[0-9a-f]{32}>$/g, ''));

const OK = { ok: true };

describe('e2e: Slack channel on the built server (fake Slack Web API, fake OpenAI-compatible model)', function () {
  this.timeout(90_000);

  let slack: FakeSlack;
  let llm: FakeOpenAi;
  let gateway: GatewayProcess;
  let bare: GatewayProcess;
  let key: string;
  let firedFile: string;
  const started: GatewayProcess[] = [];

  /** The trigger's lines: `<event_id>|<timestamp header>|<signature header>` per firing. */
  const firings = async (): Promise<string[][]> =>
    (await readFile(firedFile, 'utf8').catch(() => ''))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.split('|'));
  const firingsOf = async (eventId: string): Promise<string[][]> => (await firings()).filter(([id]) => id === eventId);

  before(async () => {
    [slack, llm] = await Promise.all([startFakeSlack([TOKEN]), startFakeOpenAi()]);
    const [data, bareData, triggersDir] = await Promise.all([migratedDataDir('e2e-slack'), migratedDataDir('e2e-slack-bare'), tempDir('e2e-slack-triggers')]);
    firedFile = join(triggersDir, 'fired.txt');
    const triggersFile = join(triggersDir, 'TRIGGERS.json');
    await writeFile(
      triggersFile,
      JSON.stringify([
        {
          name: 'slack-events',
          watch_path: '/messaging/slack/webhook',
          enabled: true,
          actions: [
            {
              type: 'command',
              command: `printf '%s|%s|%s\\n' {{body.event_id}} {{headers.x-slack-request-timestamp}} {{headers.x-slack-signature}} >> ${firedFile}`,
            },
          ],
        },
      ]),
    );
    const llmEnv = { LLM_PROVIDER: 'custom', LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'fake-model', CUSTOM_API_KEY: 'sk-fake', LLM_MAX_RETRIES: '0' };
    const start = async (env: Record<string, string>): Promise<GatewayProcess> => {
      const process = await startGateway(env);
      started.push(process);
      return process;
    };
    [gateway, bare] = await Promise.all([
      start({
        DATA_DIR: data,
        TRIGGERS_FILE: triggersFile,
        SLACK_BOT_TOKEN: TOKEN,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: slack.url,
        SLACK_ALLOWED_CHANNEL_IDS: Object.values(ALLOWED).join(','),
        JOB_AGENT_COMMAND: 'echo done',
        ...llmEnv,
      }),
      start({ DATA_DIR: bareData, TRIGGERS_FILE: join(triggersDir, 'NONE.json'), ...llmEnv }),
    ]);
    key = await createKey(gateway.env, 'slack-e2e');
  });

  after(async () => {
    await Promise.all(started.map((process) => process.stop()));
    await Promise.all([slack, llm].filter((fake) => fake !== undefined).map((fake) => fake.close()));
  });

  it('answers a signed url_verification with its challenge; an unsigned one is refused', async () => {
    const challenge = { token: 'legacy', challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', type: 'url_verification' };
    const answer = await post(gateway, challenge);
    expect({ status: answer.status, body: answer.body }).to.deep.equal({ status: 200, body: { challenge: challenge.challenge } });
    expect((await post(gateway, challenge, { unsigned: true })).status).to.equal(401);
  });

  it('a signed message: {ok: true} at once, then 👀 and the reply in its thread, as mrkdwn; the trigger fires once, without the signature', async () => {
    llm.script([{ text: '**Hello** Ada & <friends>' }]);
    const release = llm.hold();
    try {
      const event = messageEvent(ALLOWED.conversation, 'Hello, who are you?');
      const answer = await post(gateway, event.body);
      expect({ status: answer.status, body: answer.body }).to.deep.equal({ status: 200, body: OK });
      // answered while the model's answer was held back: nothing was posted to the channel yet
      expect(postsTo(slack, ALLOWED.conversation), 'messages posted when the event was answered').to.deep.equal([]);
      release();

      const [reply] = await waitForPosts(slack, ALLOWED.conversation);
      expect(reply.token).to.equal(TOKEN);
      expect(reply.body).to.deep.include({ channel: ALLOWED.conversation, thread_ts: event.ts, text: '*Hello* Ada &amp; &lt;friends&gt;', mrkdwn: true });
      const reactions = slack.of('reactions.add').filter((call) => call.body.channel === ALLOWED.conversation);
      expect(reactions.map((call) => call.body)).to.deep.equal([{ channel: ALLOWED.conversation, timestamp: event.ts, name: 'eyes' }]);
      expect(slack.calls.indexOf(reactions[0])).to.be.below(slack.calls.indexOf(reply));
      expect(userTexts(llm.requests.at(-1)!)).to.deep.equal(['Hello, who are you?']);

      const [firing] = await waitFor(async () => ((await firingsOf(event.eventId)).length > 0 ? firingsOf(event.eventId) : undefined), 20_000, 'the trigger');
      // The timestamp reached the trigger's snapshot; the signature (a credential header) never does.
      expect(firing).to.deep.equal([event.eventId, firing[1], '']);
      expect(firing[1]).to.match(/^\d+$/);
    } finally {
      release();
    }
  });

  it('a reply in the thread stays in the thread, with the thread as the conversation', async () => {
    llm.script([{ text: 'I am the bot.' }]);
    const opening = messageEvent(ALLOWED.thread, 'Hello, who are you?');
    expect((await post(gateway, opening.body)).status).to.equal(200);
    const [first] = await waitForPosts(slack, ALLOWED.thread);
    expect(first.body.thread_ts).to.equal(opening.ts);
    llm.script([{ text: 'You asked who I am.' }]);
    const event = messageEvent(ALLOWED.thread, 'What did I just ask?', { thread_ts: opening.ts });
    expect((await post(gateway, event.body)).status).to.equal(200);
    const replies = await waitForPosts(slack, ALLOWED.thread, 2);
    expect(replies[1].body).to.deep.include({ thread_ts: opening.ts, text: 'You asked who I am.' });
    expect(userTexts(llm.requests.at(-1)!)).to.deep.equal(['Hello, who are you?', 'What did I just ask?']);
  });

  it('a bad, old, unsigned or otherwise-signed event → 401 and nothing runs: no reply, no model call, no trigger', async () => {
    const requestsBefore = llm.requests.length;
    const refused = [messageEvent(ALLOWED.signature, 'bad signature'), messageEvent(ALLOWED.signature, 'old'), messageEvent(ALLOWED.signature, 'unsigned')];
    const answers = [
      await post(gateway, refused[0].body, { secret: 'not-the-signing-secret' }),
      await post(gateway, refused[1].body, { ageSeconds: 6 * 60 }),
      await post(gateway, refused[2].body, { unsigned: true }),
    ];
    for (const answer of answers) expect({ status: answer.status, body: answer.body }).to.deep.equal({ status: 401, body: { error: 'Unauthorized' } });
    // A body changed after signing is refused too.
    const raw = JSON.stringify(refused[0].body);
    const timestamp = Math.floor(Date.now() / 1000);
    const tampered = await send(`${gateway.url}${WEBHOOK}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature(raw, timestamp) },
      body: raw.replace('bad signature', 'bad signaturf'),
    });
    expect(tampered.status).to.equal(401);

    // The observable end: a good event of the same channel is answered (its chat is worked in order) and fires its trigger.
    llm.script([{ text: 'Only this one' }]);
    const good = messageEvent(ALLOWED.signature, 'good');
    expect((await post(gateway, good.body)).status).to.equal(200);
    await waitForPosts(slack, ALLOWED.signature);
    await waitFor(async () => (await firingsOf(good.eventId)).length > 0, 20_000, 'the good event’s trigger');
    expect(postsTo(slack, ALLOWED.signature).map((call) => call.body.text)).to.deep.equal(['Only this one']);
    expect(llm.requests.slice(requestsBefore).map(userTexts)).to.deep.equal([['good']]);
    for (const event of refused) expect(await firingsOf(event.eventId)).to.deep.equal([]);
  });

  it('a body that is not UTF-8 → 401 unless rightly signed over its exact bytes, then 400 naming what is wrong (JSON events and forms alike)', async () => {
    const signedBytes = (raw: Buffer, contentType: string, secret = SIGNING_SECRET) => {
      const timestamp = Math.floor(Date.now() / 1000);
      const mac = createHmac('sha256', secret).update(`v0:${timestamp}:`).update(raw).digest('hex');
      return send<{ error?: string }>(`${gateway.url}${WEBHOOK}`, {
        method: 'POST',
        headers: { 'content-type': contentType, 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': `v0=${mac}` },
        body: raw,
      });
    };
    const event = JSON.stringify(messageEvent(ALLOWED.signature, 'PLACEHOLDER').body);
    const latin1 = Buffer.concat([
      Buffer.from(event.slice(0, event.indexOf('PLACEHOLDER'))),
      Buffer.from('\xe9l\xe8ve', 'latin1'),
      Buffer.from(event.slice(event.indexOf('PLACEHOLDER') + 11)),
    ]);
    const offset = event.indexOf('PLACEHOLDER');
    const form = Buffer.from(`payload=${encodeURIComponent('{"type":"block_actions","x":"')}%ED%A0%BD%22%7D`);
    for (const [what, raw, contentType, error] of [
      ['a Latin-1 event', latin1, 'application/json', `Invalid JSON body: not valid UTF-8 at byte offset ${offset}`],
      [
        'a form with an encoded surrogate',
        form,
        'application/x-www-form-urlencoded',
        'Invalid form body: the value of field "payload" is not valid UTF-8 once percent-decoded',
      ],
    ] as const) {
      expect(await signedBytes(raw, contentType, 'not-the-signing-secret'), `${what}, wrongly signed`).to.deep.equal({
        status: 401,
        body: { error: 'Unauthorized' },
      });
      expect(await signedBytes(raw, contentType), `${what}, signed`).to.deep.equal({ status: 400, body: { error } });
    }
  });

  it('a retry of the same event (X-Slack-Retry-Num) runs nothing twice: one answer, one model call, one firing', async () => {
    const requestsBefore = llm.requests.length;
    // The channel's messages are answered one at a time, in order: the model's answers in that order.
    llm.script([{ text: 'Answered once' }, { text: 'Next one' }]);
    const event = messageEvent(ALLOWED.retry, 'Say it once');
    expect((await post(gateway, event.body)).status).to.equal(200);
    for (const retry of ['1', '2']) {
      const answer = await post(gateway, event.body, { headers: { 'x-slack-retry-num': retry, 'x-slack-retry-reason': 'http_timeout' } });
      expect({ status: answer.status, body: answer.body }).to.deep.equal({ status: 200, body: OK });
    }
    // The observable end: the next event of that channel is answered after it, and fires its trigger.
    const next = messageEvent(ALLOWED.retry, 'And the next');
    expect((await post(gateway, next.body)).status).to.equal(200);
    await waitForPosts(slack, ALLOWED.retry, 2);
    await waitFor(async () => (await firingsOf(next.eventId)).length > 0, 20_000, 'the next event’s trigger');
    expect(postsTo(slack, ALLOWED.retry).map((call) => call.body.text)).to.deep.equal(['Answered once', 'Next one']);
    expect(llm.requests.length - requestsBefore).to.equal(2);
    expect(slack.of('reactions.add').filter((call) => call.body.channel === ALLOWED.retry)).to.have.length(2);
    expect(await firingsOf(event.eventId)).to.have.length(1);
  });

  it('a message that arrives both as a message and as an app_mention is answered once', async () => {
    const requestsBefore = llm.requests.length;
    llm.script([{ text: 'Mentioned' }, { text: 'After the mention' }]);
    const message = messageEvent(ALLOWED.mention, '<@U0BOT> are you there?');
    const mention = messageEvent(ALLOWED.mention, '<@U0BOT> are you there?', { type: 'app_mention', ts: message.ts, event_ts: message.ts });
    (mention.body.event as Record<string, unknown>).ts = message.ts;
    expect((await post(gateway, message.body)).status).to.equal(200);
    expect((await post(gateway, mention.body)).status).to.equal(200);
    expect((await post(gateway, messageEvent(ALLOWED.mention, 'next').body)).status).to.equal(200);
    await waitForPosts(slack, ALLOWED.mention, 2);
    // A duplicate answer would be queued or running until now: counted once the queues are empty.
    await queuesDrained(gateway.url);
    expect(postsTo(slack, ALLOWED.mention).map((call) => call.body.text)).to.deep.equal(['Mentioned', 'After the mention']);
    expect(llm.requests.length - requestsBefore).to.equal(2);
    expect(userTexts(llm.requests[requestsBefore]).at(-1)).to.equal('are you there?');
    // The second model request is the follow-up's, not the mention's answered again.
    expect(userTexts(llm.requests[requestsBefore + 1]).at(-1)).to.equal('next');
  });

  it('bot messages and edits are acknowledged and ignored; a channel that is not allowed gets one hint naming SLACK_ALLOWED_CHANNEL_IDS', async () => {
    const requestsBefore = llm.requests.length;
    const ignored = [
      messageEvent(ALLOWED.ignored, 'I am a bot', { bot_id: 'B0OTHER', subtype: 'bot_message' }),
      messageEvent(ALLOWED.ignored, '', { subtype: 'message_changed', message: { text: 'edited', user: 'U0ADA' } }),
    ];
    for (const event of ignored) expect((await post(gateway, event.body)).body).to.deep.equal(OK);
    const stranger = messageEvent(NOT_ALLOWED, 'Hello?');
    expect((await post(gateway, stranger.body)).status).to.equal(200);
    const [hint] = await waitForPosts(slack, NOT_ALLOWED);
    expect(String(hint.body.text)).to.contain(NOT_ALLOWED).and.to.contain('SLACK_ALLOWED_CHANNEL_IDS');
    expect(hint.body).to.deep.include({ thread_ts: stranger.ts, mrkdwn: false });
    llm.script([{ text: 'Only people' }]);
    expect((await post(gateway, messageEvent(ALLOWED.ignored, 'a person').body)).status).to.equal(200);
    await waitForPosts(slack, ALLOWED.ignored);
    expect(postsTo(slack, ALLOWED.ignored).map((call) => call.body.text)).to.deep.equal(['Only people']);
    expect(llm.requests.slice(requestsBefore).map(userTexts)).to.deep.equal([['a person']]);
  });

  it('a reply longer than 3 500 characters arrives as several messages in the thread, cut between paragraphs, holding all of it', async () => {
    const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i + 1}. ${Array.from({ length: 90 }, (_, w) => `word${i + 1}x${w}`).join(' ')}.`);
    const long = paragraphs.join('\n\n');
    expect(long.length).to.be.above(2 * 3500);
    llm.script([{ text: long }]);
    const event = messageEvent(ALLOWED.long, 'Tell me a long story');
    expect((await post(gateway, event.body)).status).to.equal(200);
    await waitForPosts(slack, ALLOWED.long, 3);
    const parts = postsTo(slack, ALLOWED.long);
    // The last part is sent once the model has answered: wait until all the text is there.
    await waitFor(
      () =>
        postsTo(slack, ALLOWED.long)
          .map((call) => String(call.body.text))
          .join('')
          .replace(/\s+/g, '') === long.replace(/\s+/g, ''),
      20_000,
      'all parts',
    );
    for (const part of postsTo(slack, ALLOWED.long)) {
      expect(String(part.body.text).length).to.be.within(1, 3500);
      expect(part.body.thread_ts).to.equal(event.ts);
    }
    for (const paragraph of paragraphs) expect(postsTo(slack, ALLOWED.long).filter((call) => String(call.body.text).includes(paragraph))).to.have.length(1);
    expect(parts.length).to.be.at.least(3);
  });

  it('a job created from a Slack thread is announced in that thread when it finishes', async () => {
    llm.script([{ toolCalls: [{ name: 'create_job', arguments: { job: 'Fix the login bug' } }] }, { text: 'Job started' }]);
    const event = messageEvent(ALLOWED.job, 'Please fix the login bug');
    expect((await post(gateway, event.body)).status).to.equal(200);
    await waitFor(() => postsTo(slack, ALLOWED.job).some((call) => call.body.text === 'Job started'), 20_000, 'the agent’s answer');
    const tool = llm.requests.at(-1)!.messages.find((m) => m.role === 'tool');
    const jobId = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(textOf(tool?.content))?.[0];
    expect(jobId, JSON.stringify(tool)).to.be.a('string');
    const notice = await waitFor(() => postsTo(slack, ALLOWED.job).find((call) => String(call.body.text).includes(jobId!)), 30_000, 'the job notice');
    expect(notice.body).to.deep.include({ channel: ALLOWED.job, thread_ts: event.ts });
    expect(String(notice.body.text)).to.contain('succeeded');
    const status = await send<Record<string, unknown>>(`${gateway.url}/api/jobs/status?job_id=${jobId}`, { headers: { 'x-api-key': key } });
    expect(status.body).to.deep.include({ status: 'succeeded', source: 'chat' });
  });

  it('without a signing secret the Slack route refuses every request, signed or not (fail closed)', async () => {
    const event = messageEvent(ALLOWED.conversation, 'anyone?');
    for (const options of [{}, { unsigned: true }, { secret: '' }]) {
      const answer = await post(bare, event.body, options);
      expect({ status: answer.status, body: answer.body }).to.deep.equal({ status: 401, body: { error: 'Unauthorized' } });
    }
  });

  it('the admin messaging page lists Slack: configured with its events path and allowed channels, or naming SLACK_BOT_TOKEN where it is not', async () => {
    const pageOf = async (process: GatewayProcess): Promise<string> => {
      expect(await setAdminPassword(process.env, 'slack-e2e-admin-password')).to.equal(0);
      const client = adminClient(process.url);
      const { cookie } = await client.login('slack-e2e-admin-password');
      const response = await client.get('/settings/messaging', cookie);
      expect(response.status).to.equal(200);
      return response.text();
    };
    const configured = await pageOf(gateway);
    const slackPart = configured.slice(configured.indexOf('<h2>Slack</h2>'));
    expect(configured).to.contain('<h2>Telegram</h2>').and.to.contain('<h2>Slack</h2>');
    expect(slackPart).to.contain('A bot token is configured.').and.to.contain('<code>/api/messaging/slack/webhook</code>');
    for (const id of Object.values(ALLOWED)) expect(slackPart).to.contain(`<code>${id}</code>`);
    expect(configured).not.to.contain(TOKEN).and.not.to.contain(SIGNING_SECRET);
    const unconfigured = await pageOf(bare);
    expect(unconfigured.slice(unconfigured.indexOf('<h2>Slack</h2>'))).to.contain('No bot token is configured (<code>SLACK_BOT_TOKEN</code>)');
  });

  it('the bot token and the signing secret never appear in the logs, also when a call with the token fails', async () => {
    // Traffic of its own: an event refused for its signature, one answered with a reaction that fails.
    const refused = messageEvent(ALLOWED.logs, 'not signed right');
    expect((await post(gateway, refused.body, { secret: 'not-the-signing-secret' })).status).to.equal(401);
    slack.failNext('reactions.add', { status: 200, body: { ok: false, error: 'invalid_auth' } });
    llm.script([{ text: 'Logged' }]);
    const event = messageEvent(ALLOWED.logs, 'anything for the logs');
    expect((await post(gateway, event.body)).status).to.equal(200);
    await waitForPosts(slack, ALLOWED.logs);
    await queuesDrained(gateway.url);
    expect(
      slack.of('reactions.add').filter((call) => call.body.channel === ALLOWED.logs),
      'the failed reaction',
    ).to.have.length(1);
    // The logs hold this traffic: the failed call is logged, with what the platform answered.
    await gateway.logLine((line) => line.msg === 'could not acknowledge the message' && line.updateId === event.eventId, 'the failed reaction', 15_000);
    const text = gateway.logs.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
    for (const secret of [TOKEN, SIGNING_SECRET]) expect(text.includes(secret), `logs contain ${secret}`).to.equal(false);
  });
});
