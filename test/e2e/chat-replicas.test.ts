import { expect } from 'chai';
import { join } from 'node:path';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-open-ai.js';
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram.js';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { send, waitFor } from '../support/http.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../support/postgres.js';

/*
 * End-to-end: two replicas of the BUILT server on one PostgreSQL database, one fake Bot API
 * and one fake model (slow enough that two answers could overlap). One chat's messages go to
 * the replicas in turn, as a load balancer would send them: the chat is answered one message
 * at a time, in the order the platform sent them.
 */

const TOKEN = '123456:REPLICAS-token-AAAAbbbbCCCC';
const SECRET = 'replicas-webhook_secret-0123456789';
const CHAT = 100_777;

describeWithPostgres('e2e: chat order across two replicas (PostgreSQL)', function () {
  this.timeout(120_000);
  let database: ScratchDatabase | undefined;
  let tg: FakeTelegram | undefined;
  let llm: FakeOpenAi | undefined;
  const replicas: GatewayProcess[] = [];

  before(async () => {
    [database, tg, llm] = await Promise.all([createScratchDatabase(), startFakeTelegram([TOKEN]), startFakeOpenAi()]);
    const env = {
      DATABASE_URL: database.url,
      TRIGGERS_FILE: join(await tempDir('e2e-replicas'), 'NONE.json'),
      MESSAGING_BOT_TOKEN: TOKEN,
      MESSAGING_WEBHOOK_SECRET: SECRET,
      MESSAGING_API_URL: tg.url,
      MESSAGING_ALLOWED_CHAT_IDS: String(CHAT),
      LLM_PROVIDER: 'custom',
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'fake-model',
      LLM_MAX_RETRIES: '0',
    };
    // One after the other: both migrate the same database at start-up.
    replicas.push(await startGateway({ ...env, DATA_DIR: await tempDir('e2e-replica-a') }));
    replicas.push(await startGateway({ ...env, DATA_DIR: await tempDir('e2e-replica-b') }));
  });

  after(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await Promise.all([tg?.close(), llm?.close()]);
    await database?.drop();
  });

  it("answers one chat one message at a time, in the platform's order, whichever replica got each message", async () => {
    const count = 6;
    llm!.delayMs = 400;
    llm!.script(Array.from({ length: count }, (_, i) => ({ text: `answer ${i + 1}` })));
    for (let i = 1; i <= count; i++) {
      const update = {
        update_id: 900_000 + i,
        message: {
          message_id: i,
          date: Math.floor(Date.now() / 1000),
          chat: { id: CHAT, type: 'private', first_name: 'Ada' },
          from: { id: CHAT, is_bot: false, first_name: 'Ada' },
          text: `message ${i}`,
        },
      };
      // One replica gets them on Telegram's own path, the other on the alias path: one endpoint.
      const path = i % 2 === 0 ? '/api/messaging/telegram/webhook' : '/api/messaging/webhook';
      const answer = await send(`${replicas[i % 2].url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
        body: JSON.stringify(update),
      });
      expect(answer.status).to.equal(200);
    }
    const replies = await waitFor(
      () => {
        const sent = tg!.of('sendMessage').filter((call) => String(call.body.chat_id) === String(CHAT));
        return sent.length >= count ? sent : undefined;
      },
      60_000,
      `${count} replies`,
    );
    expect(llm!.maxInFlight, 'model calls for the chat at the same time').to.equal(1);
    // Each model call saw the chat's messages up to its own, in order: message k was asked k-th.
    const lastUserText = (request: FakeOpenAi['requests'][number]): string => {
      const user = request.messages.filter((m) => m.role === 'user').at(-1);
      return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content);
    };
    llm!.requests.forEach((request, k) => {
      expect(lastUserText(request)).to.include(`message ${k + 1}`);
    });
    expect(replies.map((call) => call.body.text)).to.deep.equal(Array.from({ length: count }, (_, i) => `answer ${i + 1}`));
  });
});
