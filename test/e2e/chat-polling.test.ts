import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { adminClient, setAdminPassword } from '../support/admin-http.js';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-open-ai.js';
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram.js';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey, send, waitFor } from '../support/http.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../support/postgres.js';

/*
 * End-to-end: Telegram in polling mode (TELEGRAM_MODE=polling) on the BUILT server: no webhook,
 * no public address; the gateway fetches updates from the fake Bot API with getUpdates and
 * answers them as it answers webhook updates. What a user notices: the replies the fake
 * records, the model calls, the triggers' files, and the 409 of a registration.
 */

const TOKEN = '123456:POLLING-token-AAAAbbbbCCCC';
const CHAT = 100_555;

let nextMessageId = 1;
const textUpdate = (text: string, chat = CHAT): Record<string, unknown> => ({
  message: {
    message_id: ++nextMessageId,
    date: Math.floor(Date.now() / 1000),
    chat: { id: chat, type: 'private', first_name: 'Ada' },
    from: { id: chat, is_bot: false, first_name: 'Ada' },
    text,
  },
});

const repliesTo = (tg: FakeTelegram, chat = CHAT) => tg.of('sendMessage').filter((call) => String(call.body.chat_id) === String(chat));
const waitForReplies = (tg: FakeTelegram, count: number, chat = CHAT) =>
  waitFor(() => (repliesTo(tg, chat).length >= count ? repliesTo(tg, chat) : undefined), 60_000, `${count} replies`);

describe('e2e: Telegram by long polling (embedded database)', function () {
  this.timeout(180_000);
  let tg: FakeTelegram;
  let llm: FakeOpenAi;
  let dir: string;
  let env: Record<string, string>;
  let gateway: GatewayProcess | undefined;

  before(async () => {
    [tg, llm] = await Promise.all([startFakeTelegram([TOKEN]), startFakeOpenAi()]);
    dir = await tempDir('e2e-polling');
    const triggersFile = join(dir, 'TRIGGERS.json');
    // The trigger watches Telegram's webhook path: polled updates fire it as webhook ones do.
    await writeFile(
      triggersFile,
      JSON.stringify([
        {
          name: 'on-telegram',
          watch_path: '/messaging/telegram/webhook',
          enabled: true,
          actions: [{ type: 'command', command: "printf '%s\\n' {{body.update_id}} >> fired.txt" }],
        },
      ]),
    );
    env = {
      DATA_DIR: await migratedDataDir('e2e-polling-data'),
      TRIGGERS_FILE: triggersFile,
      TRIGGERS_DIR: dir,
      TELEGRAM_MODE: 'polling',
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_API_URL: tg.url,
      TELEGRAM_ALLOWED_CHAT_IDS: String(CHAT),
      LLM_PROVIDER: 'custom',
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'fake-model',
      LLM_MAX_RETRIES: '0',
    };
    // A webhook left from webhook mode: polling removes it first (getUpdates is refused while it is set).
    await send(`${tg.url}/bot${TOKEN}/setWebhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://old.example.com/hook' }),
    });
    gateway = await startGateway(env);
  });

  after(async () => {
    await gateway?.stop();
    await Promise.all([tg?.close(), llm?.close()]);
  });

  const fired = async (): Promise<string[]> => (await readFile(join(dir, 'fired.txt'), 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');

  it('removes the webhook, then answers updates it fetches, and fires the webhook path’s triggers once per update', async () => {
    llm.script([{ text: 'Polled answer 1' }, { text: 'Polled answer 2' }]);
    const first = tg.pushUpdate(textUpdate('hello by polling'));
    const second = tg.pushUpdate(textUpdate('and again'));
    const replies = await waitForReplies(tg, 2);
    expect(replies.map((call) => call.body.text)).to.deep.equal(['Polled answer 1', 'Polled answer 2']);
    expect(tg.webhookUrl).to.equal('');
    expect(tg.of('deleteWebhook')).to.have.length(1);
    await waitFor(async () => (await fired()).length >= 2, 30_000, 'two trigger runs');
    // Once each; the two runs are independent (the trigger sets no `concurrency`), so in either order.
    expect(await fired()).to.have.members([String(first), String(second)]);
    // Answered updates are confirmed to the platform by the next poll's offset.
    await waitFor(() => tg.pendingUpdates.length === 0, 30_000, 'the updates confirmed');
    expect(tg.pollConflicts, 'polls refused or cut short').to.equal(0);
  });

  it('refuses webhook registration in polling mode with a 409 naming TELEGRAM_MODE', async () => {
    const key = await createKey(gateway!.env, 'polling-e2e');
    const answer = await send(`${gateway!.url}/api/messaging/telegram/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ bot_token: TOKEN, webhook_url: 'https://gateway.example.com/api/messaging/telegram/webhook' }),
    });
    expect(answer.status).to.equal(409);
    expect((answer.body as { error: string }).error).to.include('TELEGRAM_MODE=polling');
    expect(tg.of('setWebhook')).to.have.length(1);
  });

  it('says on the admin messaging page that Telegram is polled', async () => {
    expect(await setAdminPassword(gateway!.env, 'polling-admin-password')).to.equal(0);
    const admin = adminClient(gateway!.url);
    const { cookie } = await admin.login('polling-admin-password');
    const page = await (await admin.get('/settings/messaging', cookie)).text();
    expect(page).to.include('Updates are fetched by long polling (<code>TELEGRAM_MODE=polling</code>)');
  });

  it('keeps its position across a restart: nothing is answered twice, and what came meanwhile is answered', async () => {
    const before = repliesTo(tg).length;
    const modelCalls = llm.requests.length;
    expect(await gateway!.stop()).to.equal(0);
    const pollsBefore = tg.of('getUpdates').length;
    gateway = undefined;
    llm.script([{ text: 'After the restart' }]);
    const meanwhile = tg.pushUpdate(textUpdate('sent while the gateway was down'));
    gateway = await startGateway(env);
    const replies = await waitForReplies(tg, before + 1);
    expect(replies.slice(before).map((call) => call.body.text)).to.deep.equal(['After the restart']);
    expect(llm.requests.length - modelCalls, 'model calls after the restart').to.equal(1);
    await waitFor(async () => (await fired()).includes(String(meanwhile)), 30_000, 'the trigger of the update sent meanwhile');
    // The first poll after the restart starts at the stored position: earlier updates are not fetched again.
    expect(tg.of('getUpdates')[pollsBefore].body.offset, 'the first poll after the restart').to.equal(meanwhile);
    expect(new Set(await fired()).size, 'each update fired its trigger once').to.equal((await fired()).length);
  });
});

describeWithPostgres('e2e: Telegram by long polling on two replicas (PostgreSQL)', function () {
  this.timeout(180_000);
  let database: ScratchDatabase | undefined;
  let tg: FakeTelegram | undefined;
  let llm: FakeOpenAi | undefined;
  const replicas: GatewayProcess[] = [];

  before(async () => {
    [database, tg, llm] = await Promise.all([createScratchDatabase(), startFakeTelegram([TOKEN]), startFakeOpenAi()]);
    const env = {
      DATABASE_URL: database.url,
      TRIGGERS_FILE: join(await tempDir('e2e-polling-replicas'), 'NONE.json'),
      MESSAGING_MODE: 'polling',
      MESSAGING_BOT_TOKEN: TOKEN,
      MESSAGING_API_URL: tg.url,
      MESSAGING_ALLOWED_CHAT_IDS: String(CHAT),
      LLM_PROVIDER: 'custom',
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'fake-model',
      LLM_MAX_RETRIES: '0',
    };
    replicas.push(await startGateway({ ...env, DATA_DIR: await tempDir('e2e-polling-a') }));
    replicas.push(await startGateway({ ...env, DATA_DIR: await tempDir('e2e-polling-b') }));
  });

  after(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await Promise.all([tg?.close(), llm?.close()]);
    await database?.drop();
  });

  it('polls from one replica only, and answers every update once', async () => {
    const count = 5;
    llm!.script(Array.from({ length: count }, (_, i) => ({ text: `replica answer ${i + 1}` })));
    for (let i = 1; i <= count; i++) tg!.pushUpdate(textUpdate(`message ${i}`));
    const replies = await waitForReplies(tg!, count);
    await waitFor(() => tg!.pendingUpdates.length === 0, 30_000, 'the updates confirmed');
    expect(replies.map((call) => call.body.text)).to.deep.equal(Array.from({ length: count }, (_, i) => `replica answer ${i + 1}`));
    expect(llm!.requests, 'one model call per update').to.have.length(count);
    expect(tg!.pollConflicts, 'polls cut short by another poller').to.equal(0);
    expect(tg!.of('deleteWebhook'), 'one poller removed the webhook').to.have.length(1);
    const polling = replicas.filter((replica) => replica.logs.some((line) => typeof line === 'object' && line.msg === 'polling for updates'));
    expect(polling, 'replicas that polled').to.have.length(1);
  });
});
