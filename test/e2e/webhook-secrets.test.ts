import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-open-ai.js';
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram.js';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey, queuesDrained, send, waitFor, type JsonResponse } from '../support/http.js';

/*
 * End-to-end (issue 11 item 5, issue 12 item 3): every secret check of the platform webhooks
 * fails closed and looks at the headers before the body; a chat update redelivered by the
 * platform runs nothing twice; text the database cannot store is still answered; a
 * registration is validated before the platform is called. The BUILT server, embedded
 * database, a loopback fake Bot API and a fake OpenAI-compatible model; triggers on both
 * webhooks append to files in TRIGGERS_DIR, so what ran is what the files hold.
 *
 * Nothing is proved by sleeping: "nothing else ran" is checked once a barrier posted after
 * the requests under test has itself run (a later delivery's trigger; in the chat, a later
 * message's answer: a chat's messages are answered one at a time in update_id order). Trigger
 * tasks stored before the barrier's are taken before it, so a second run would show up by then.
 * (The queue depth in /metrics cannot serve: pg-boss serves it from a cache the supervisor
 * refreshes now and then.)
 */

const TOKEN = '123456:SECRETS-e2e-token-AAAAbbbb';
const WEBHOOK_URL = 'https://gateway.example.com/api/messaging/webhook';
const CODEHOST_SECRET = 'codehost-secret-for-secrets-e2e';
const CHAT = 515_151;
const BODY_LIMIT = 4096;
const UNAUTHORIZED = { status: 401, body: { error: 'Unauthorized' } };
const OK = { status: 200, body: { ok: true } };

let nextUpdateId = 900_000_000;
const textUpdate = (text: string, updateId = ++nextUpdateId): Record<string, unknown> => ({
  update_id: updateId,
  message: {
    message_id: updateId % 1_000_000,
    date: 1_700_000_000,
    chat: { id: CHAT, type: 'private' },
    from: { id: CHAT, is_bot: false, first_name: 'Eve' },
    text,
  },
});

const post = (gateway: GatewayProcess, path: string, body: string | Buffer, headers: Record<string, string>): Promise<JsonResponse> =>
  send(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

const postUpdate = (gateway: GatewayProcess, update: unknown, secret: string | null): Promise<JsonResponse> =>
  post(gateway, '/api/messaging/webhook', JSON.stringify(update), secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret });

const register = (gateway: GatewayProcess, key: string, body: unknown): Promise<JsonResponse> =>
  post(gateway, '/api/messaging/register', JSON.stringify(body), { 'x-api-key': key });

const sign = (raw: string): string => `sha256=${createHmac('sha256', CODEHOST_SECRET).update(raw).digest('hex')}`;

/** Lines a trigger appended to a file of TRIGGERS_DIR. */
const lines = async (dir: string, file: string): Promise<string[]> => (await readFile(join(dir, file), 'utf8').catch(() => '')).split('\n').filter(Boolean);

const triggerFile = async (): Promise<string> => {
  const file = join(await tempDir('e2e-secrets-triggers'), 'TRIGGERS.json');
  await writeFile(
    file,
    JSON.stringify([
      {
        name: 'on-update',
        watch_path: '/messaging/webhook',
        enabled: true,
        actions: [{ type: 'command', command: "printf '%s\\n' {{body.update_id}} >> updates.txt" }],
      },
      // Telegram's own path: the secret header must never reach a trigger (it renders empty).
      {
        name: 'on-telegram',
        watch_path: '/messaging/telegram/webhook',
        enabled: true,
        actions: [
          {
            type: 'command',
            command: "printf '%s|%s|%s\\n' {{body.update_id}} {{headers.x-telegram-bot-api-secret-token}} {{headers.content-type}} >> telegram.txt",
          },
        ],
      },
      {
        name: 'on-codehost',
        watch_path: '/codehost/webhook',
        enabled: true,
        actions: [{ type: 'command', command: "printf '%s\\n' {{body.run}} >> codehost.txt" }],
      },
    ]),
  );
  return file;
};

describe('e2e: platform webhooks fail closed, check headers first, and run a redelivery once', function () {
  this.timeout(90_000);

  const started: GatewayProcess[] = [];
  const fakes: Array<FakeTelegram | FakeOpenAi> = [];

  /** A gateway with its own fakes, data and trigger directory; MESSAGING_WEBHOOK_SECRET only when given. */
  const startOne = async (extra: Record<string, string> = {}) => {
    const [tg, llm] = await Promise.all([startFakeTelegram([TOKEN]), startFakeOpenAi()]);
    fakes.push(tg, llm);
    const dir = await tempDir('e2e-secrets-dir');
    const env: Record<string, string> = {
      DATA_DIR: await migratedDataDir('e2e-secrets-data'),
      TRIGGERS_FILE: await triggerFile(),
      TRIGGERS_DIR: dir,
      MESSAGING_API_URL: tg.url,
      MESSAGING_ALLOWED_CHAT_IDS: String(CHAT),
      // where WEBHOOK_URL is: without it (and without an earlier registration) nothing registers
      PUBLIC_URL: 'https://gateway.example.com',
      CODEHOST_WEBHOOK_SECRET: CODEHOST_SECRET,
      BODY_LIMIT: String(BODY_LIMIT),
      LLM_PROVIDER: 'custom',
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'fake-model',
      CUSTOM_API_KEY: 'sk-fake',
      LLM_MAX_RETRIES: '0',
      ...extra,
    };
    const gateway = await startGateway(env);
    started.push(gateway);
    const key = await createKey(gateway.env, 'secrets-e2e');
    return { gateway, tg, llm, dir, key, env };
  };

  type One = Awaited<ReturnType<typeof startOne>>;

  /** Posts a signed code-host delivery and waits for its trigger to have run. */
  const codehostBarrier = async (one: One): Promise<void> => {
    const run = `barrier-${randomUUID()}`;
    const raw = JSON.stringify({ run, ref: 'refs/heads/main', commits: [] });
    const answer = await post(one.gateway, '/api/codehost/webhook', raw, {
      'x-github-event': 'push',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': sign(raw),
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    await waitFor(async () => (await lines(one.dir, 'codehost.txt')).includes(run), 30_000, 'the code-host barrier');
  };

  /**
   * Posts a chat update and waits for its trigger and for the model to be asked about it (a
   * chat's messages reach the model one at a time in update_id order: every earlier message of
   * the chat has been handled by then); returns its update_id.
   */
  const chatBarrier = async (one: One, secret: string): Promise<string> => {
    const update = textUpdate('');
    const id = String(update.update_id);
    (update.message as { text: string }).text = `barrier ${id}`;
    expect(await postUpdate(one.gateway, update, secret)).to.deep.equal(OK);
    const asked = (): boolean => one.llm.requests.some((request) => JSON.stringify(request.messages.at(-1)).includes(`barrier ${id}`));
    await waitFor(async () => asked() && (await lines(one.dir, 'updates.txt')).includes(id), 30_000, 'the chat barrier');
    return id;
  };

  after(async () => {
    await Promise.all(started.map((gateway) => gateway.stop()));
    await Promise.all(fakes.map((fake) => fake.close()));
  });

  it('a token stored by an earlier registration, with MESSAGING_WEBHOOK_SECRET no longer set: start-up warns, every update is refused with 401 and nothing runs', async () => {
    const first = await startOne({ MESSAGING_WEBHOOK_SECRET: 'the-old-configured-secret' });
    expect((await register(first.gateway, first.key, { bot_token: TOKEN, webhook_url: WEBHOOK_URL })).status).to.equal(200);
    expect(await first.gateway.stop()).to.equal(0);

    const { MESSAGING_WEBHOOK_SECRET: _dropped, ...withoutSecret } = first.env;
    const again = await startGateway(withoutSecret);
    started.push(again);
    await again.logLine((line) => String(line.msg).includes('every chat update is refused'), 'the start-up warning "every chat update is refused"');
    const before = first.tg.calls.length;
    for (const secret of [null, '', 'the-old-configured-secret', 'guess']) {
      expect(await postUpdate(again, textUpdate('let me in'), secret), String(secret)).to.deep.equal(UNAUTHORIZED);
    }
    await codehostBarrier({ ...first, gateway: again });
    expect(await lines(first.dir, 'updates.txt')).to.deep.equal([]);
    expect(first.tg.calls.slice(before)).to.deep.equal([]);
    expect(first.llm.requests).to.deep.equal([]);
  });

  describe('a gateway without MESSAGING_WEBHOOK_SECRET', () => {
    let one: One;
    /** The secret the gateway generated and gave the platform when it registered. */
    let secret: string;

    before(async () => {
      one = await startOne();
      expect(await postUpdate(one.gateway, textUpdate('before any registration'), null)).to.deep.equal(UNAUTHORIZED);
      expect((await register(one.gateway, one.key, { bot_token: TOKEN, webhook_url: WEBHOOK_URL })).status).to.equal(200);
      secret = String(one.tg.of('setWebhook').at(-1)!.body.secret_token);
    });

    // Every test leaves the gateway idle (chat replies sent, triggers run): none sees another's work.
    afterEach(async () => {
      if (one !== undefined) await queuesDrained(one.gateway.url);
    });

    it('registration gave the platform a strong generated secret, and updates are accepted with it only', async () => {
      expect(secret).to.match(/^[A-Za-z0-9_-]{43}$/);
      for (const wrong of [null, '', 'guess', secret.slice(0, -1), `${secret}x`]) {
        expect(await postUpdate(one.gateway, textUpdate('wrong secret'), wrong), String(wrong)).to.deep.equal(UNAUTHORIZED);
      }
      const update = textUpdate('right secret');
      expect(await postUpdate(one.gateway, update, secret)).to.deep.equal(OK);
      await waitFor(async () => (await lines(one.dir, 'updates.txt')).includes(String(update.update_id)), 15_000, 'the trigger of the accepted update');
      await waitFor(
        () => one.llm.requests.some((request) => JSON.stringify(request.messages.at(-1)).includes('right secret')),
        15_000,
        'the model asked about the accepted update',
      );
      const logs = one.gateway.logs.map((line) => JSON.stringify(line)).join('\n');
      expect(logs.includes(secret), 'the generated secret is in the logs').to.equal(false);
    });

    it('checks the secret header before reading the body: a wrong secret gets 401 for an oversized or corrupt gzip body (the right secret gets 413 / 400)', async () => {
      const oversized = JSON.stringify({ update_id: 1, pad: 'x'.repeat(BODY_LIMIT * 2) });
      const corrupt = Buffer.concat([gzipSync(Buffer.from(JSON.stringify(textUpdate('zip')))).subarray(0, 20), Buffer.from('not gzip at all')]);
      const gzip = { 'content-encoding': 'gzip' };
      expect(await post(one.gateway, '/api/messaging/webhook', oversized, { 'x-telegram-bot-api-secret-token': 'wrong' })).to.deep.equal(UNAUTHORIZED);
      expect(await post(one.gateway, '/api/messaging/webhook', corrupt, { ...gzip, 'x-telegram-bot-api-secret-token': 'wrong' })).to.deep.equal(UNAUTHORIZED);
      expect(await post(one.gateway, '/api/messaging/webhook', corrupt, gzip)).to.deep.equal(UNAUTHORIZED);
      expect((await post(one.gateway, '/api/messaging/webhook', oversized, { 'x-telegram-bot-api-secret-token': secret })).status).to.equal(413);
      expect((await post(one.gateway, '/api/messaging/webhook', corrupt, { ...gzip, 'x-telegram-bot-api-secret-token': secret })).status).to.equal(400);
    });

    it('the same update posted twice, one after the other and at once, runs its trigger once and asks the model once', async () => {
      const requestsBefore = one.llm.requests.length;
      const first = textUpdate('say it once');
      const second = textUpdate('say it once more');
      expect(await postUpdate(one.gateway, first, secret)).to.deep.equal(OK);
      expect(await postUpdate(one.gateway, first, secret)).to.deep.equal(OK);
      for (const answer of await Promise.all([1, 2, 3].map(() => postUpdate(one.gateway, second, secret)))) expect(answer).to.deep.equal(OK);
      const barrier = await chatBarrier(one, secret);
      const ran = await lines(one.dir, 'updates.txt');
      expect(ran.filter((id) => id === String(first.update_id))).to.have.length(1);
      expect(ran.filter((id) => id === String(second.update_id))).to.have.length(1);
      // the newest turn of each request to the model (earlier turns are history): both messages and the barrier, once each
      const asked = one.llm.requests.slice(requestsBefore).map((request) => JSON.stringify(request.messages.at(-1)));
      expect(asked).to.have.length(3);
      expect(asked.filter((m) => m.includes('say it once more'))).to.have.length(1);
      expect(ran.indexOf(barrier)).to.be.above(-1);
    });

    it('text with a NUL or lone surrogates: 200, the trigger runs once, and the chat is answered (the model reads U+FFFD in their place)', async () => {
      const requestsBefore = one.llm.requests.length;
      const repliesBefore = one.tg.of('sendMessage').length;
      const update = textUpdate('null\u0000byte and \uD83D lone \uDE00 halves');
      expect(await postUpdate(one.gateway, update, secret)).to.deep.equal(OK);
      await chatBarrier(one, secret);
      // answered before the barrier reached the model (one message at a time per chat)
      expect(one.tg.of('sendMessage').length).to.be.above(repliesBefore);
      expect((await lines(one.dir, 'updates.txt')).filter((id) => id === String(update.update_id))).to.have.length(1);
      const asked = one.llm.requests.slice(requestsBefore).map((request) => JSON.stringify(request.messages.at(-1)));
      expect(asked).to.have.length(2);
      expect(asked[0]).to.include('null\uFFFDbyte and \uFFFD lone \uFFFD halves');
    });

    it("an update on Telegram's path or on the alias path fires the triggers of both paths, each once, and the secret header reaches none", async () => {
      const repliesBefore = one.tg.of('sendMessage').length;
      const onOwnPath = textUpdate('on the telegram path');
      const onAlias = textUpdate('on the alias path');
      expect(
        await post(one.gateway, '/api/messaging/telegram/webhook', JSON.stringify(onOwnPath), { 'x-telegram-bot-api-secret-token': secret }),
      ).to.deep.equal(OK);
      expect(await postUpdate(one.gateway, onAlias, secret)).to.deep.equal(OK);
      // A redelivery on the other path is the same update: nothing runs again.
      expect(await postUpdate(one.gateway, onOwnPath, secret)).to.deep.equal(OK);
      const barrier = await chatBarrier(one, secret);
      const ids = [onOwnPath, onAlias].map((update) => String(update.update_id));
      const updates = await lines(one.dir, 'updates.txt');
      for (const id of ids)
        expect(
          updates.filter((line) => line === id),
          id,
        ).to.have.length(1);
      // The two triggers of an update run apart: the barrier waited for the first one's.
      const expected = [...ids, barrier].map((id) => `${id}||application/json`);
      const telegram = await waitFor(
        async () => {
          const found = await lines(one.dir, 'telegram.txt');
          return expected.every((line) => found.includes(line)) ? found : undefined;
        },
        15_000,
        "the triggers of Telegram's path",
      );
      for (const line of expected)
        expect(
          telegram.filter((found) => found === line),
          line,
        ).to.have.length(1);
      expect(telegram.join('\n')).not.to.contain(secret);
      await waitFor(() => one.tg.of('sendMessage').length >= repliesBefore + 3, 15_000, 'the three replies');
    });

    it('a registration with a NUL in the token, or a control character in the URL, is 400 naming the field and the platform gets nothing', async () => {
      const callsBefore = one.tg.calls.length;
      expect(await register(one.gateway, one.key, { bot_token: `${TOKEN}\u0000`, webhook_url: WEBHOOK_URL })).to.deep.equal({
        status: 400,
        body: { error: 'Invalid bot_token: expected the form 123456:ABC-DEF1234ghIkl' },
      });
      expect(await register(one.gateway, one.key, { bot_token: TOKEN, webhook_url: 'https://gateway.example.com/api/\nmessaging/webhook' })).to.deep.equal({
        status: 400,
        body: { error: 'Invalid webhook_url: expected an absolute https:// URL' },
      });
      // Nothing reached the platform's registration.
      const registrationCalls = one.tg.calls
        .slice(callsBefore)
        .filter((call) => call.method === 'setWebhook' || call.method === 'getWebhookInfo' || call.method === 'deleteWebhook');
      expect(registrationCalls).to.deep.equal([]);
      // the secret in force is still the registered one
      expect(await postUpdate(one.gateway, textUpdate('still registered'), secret)).to.deep.equal(OK);
    });

    it('code host: a signed delivery without X-GitHub-Delivery is 400 and runs nothing; a missing or malformed signature is 401 before the body is read', async () => {
      const raw = JSON.stringify({ run: 'no-delivery-id' });
      expect(await post(one.gateway, '/api/codehost/webhook', raw, { 'x-github-event': 'push', 'x-hub-signature-256': sign(raw) })).to.deep.equal({
        status: 400,
        body: { error: 'Missing X-GitHub-Delivery header' },
      });
      const oversized = JSON.stringify({ run: 'big', pad: 'x'.repeat(BODY_LIMIT * 2) });
      for (const signature of [undefined, 'sha256=00', 'garbage']) {
        const headers: Record<string, string> = { 'x-github-event': 'push', 'x-github-delivery': randomUUID() };
        if (signature !== undefined) headers['x-hub-signature-256'] = signature;
        expect(await post(one.gateway, '/api/codehost/webhook', oversized, headers), String(signature)).to.deep.equal(UNAUTHORIZED);
      }
      await codehostBarrier(one);
      expect((await lines(one.dir, 'codehost.txt')).filter((run) => !run.startsWith('barrier-'))).to.deep.equal([]);
    });
  });
});
