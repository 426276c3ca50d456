import { expect } from 'chai';
import { join } from 'node:path';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-open-ai.js';
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram.js';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import pg from 'pg';
import { createKey, queuesDrained, send, waitFor } from '../support/http.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../support/postgres.js';

/*
 * End-to-end on the BUILT server with the embedded database: a chat message whose answer is cut
 * short by a kill (SIGKILL) after the model's create_job ran is answered again after the restart
 * (its task is run again), with the model wording the job anew — and creates no second job: the
 * retried tool call gets the job the first attempt created. The reply goes out once.
 */

const TOKEN = '123456:INTERRUPTED-token-AAAAbbbb';
const SECRET = 'chat-interrupted-webhook_secret-0123';
const CHAT = 100_201;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

const textOf = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content ?? ''));
/** The job ids the model was given back by create_job, in the order of its requests. */
const toolJobIds = (requests: FakeOpenAi['requests']): string[] =>
  requests.flatMap((request) => request.messages.filter((m) => m.role === 'tool').map((m) => UUID.exec(textOf(m.content))?.[0] ?? '(none)'));

describe('e2e: a chat answer killed after its create_job ran is answered again without a second job', function () {
  this.timeout(90_000);

  let tg: FakeTelegram;
  let llm: FakeOpenAi;
  let first: GatewayProcess | undefined;
  let second: GatewayProcess | undefined;
  let releaseHeld: (() => void) | undefined;

  after(async () => {
    releaseHeld?.();
    await first?.kill();
    await second?.stop();
    await Promise.all([tg?.close(), llm?.close()]);
  });

  it('the restarted gateway runs the task again: its create_job gets the job of the killed attempt; one job, one reply', async () => {
    [tg, llm] = await Promise.all([startFakeTelegram([TOKEN]), startFakeOpenAi()]);
    const env = {
      DATA_DIR: await migratedDataDir('e2e-chat-interrupted'),
      TRIGGERS_FILE: join(await tempDir('e2e-chat-interrupted-notriggers'), 'NONE.json'),
      MESSAGING_BOT_TOKEN: TOKEN,
      MESSAGING_WEBHOOK_SECRET: SECRET,
      MESSAGING_API_URL: tg.url,
      MESSAGING_ALLOWED_CHAT_IDS: String(CHAT),
      JOB_AGENT_COMMAND: 'echo done',
      LLM_PROVIDER: 'custom',
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'fake-model',
      CUSTOM_API_KEY: 'sk-fake-custom-key',
      LLM_MAX_RETRIES: '0',
    };
    first = await startGateway(env);

    // The model calls create_job; its next step (after the tool's result) is held until the kill.
    llm.script([{ toolCalls: [{ name: 'create_job', arguments: { job: 'Fix the login bug' } }] }, { text: 'Job started' }]);
    const releaseFirst = llm.hold();
    const update = {
      update_id: 900_000_001,
      message: {
        message_id: 7,
        date: Math.floor(Date.now() / 1000),
        chat: { id: CHAT, type: 'private', first_name: 'Ada' },
        from: { id: CHAT, is_bot: false, first_name: 'Ada' },
        text: 'Please fix the login bug',
      },
    };
    const answer = await send(`${first.url}/api/messaging/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
      body: JSON.stringify(update),
    });
    expect(answer.status).to.equal(200);
    await waitFor(() => llm.requests.length >= 1, 20_000, "the model's first request");
    // The first request is answered (the tool call), the second (with the tool's result) held.
    releaseFirst();
    releaseHeld = llm.hold();
    await waitFor(() => llm.requests.length >= 2, 20_000, "the model's request after the tool ran");
    const [created] = toolJobIds(llm.requests);
    expect(created, JSON.stringify(llm.requests[1].messages)).to.match(UUID);

    await first.kill();
    first = undefined;
    const sentBeforeRestart = tg.of('sendMessage').filter((call) => String(call.body.chat_id) === String(CHAT));
    expect(sentBeforeRestart, 'nothing was sent before the kill').to.deep.equal([]);

    // The model, asked again, words the job differently.
    llm.script([{ toolCalls: [{ name: 'create_job', arguments: { job: 'Repair the login form: users cannot sign in' } }] }, { text: 'Job started again' }]);
    const requestsBefore = llm.requests.length;
    releaseHeld();
    releaseHeld = undefined;
    second = await startGateway(env);
    const replies = () =>
      tg.of('sendMessage').filter((call) => String(call.body.chat_id) === String(CHAT) && !/^Job [0-9a-f-]{36} /.test(String(call.body.text)));
    await waitFor(() => replies().length >= 1, 30_000, 'the reply of the attempt run again');
    await queuesDrained(second.url);

    const again = toolJobIds(llm.requests.slice(requestsBefore));
    expect(again, 'the retried create_job got the job of the killed attempt').to.deep.equal([created]);
    expect(replies().map((call) => call.body.text)).to.deep.equal(['Job started again']);

    const key = await createKey(second.env, 'chat-interrupted');
    const jobs: unknown[] = [];
    for (const status of ['queued', 'running', 'succeeded', 'failed', 'cancelled']) {
      const listed = await send<{ jobs: Array<{ job_id: string; source: string }> }>(`${second.url}/api/jobs/status?status=${status}`, {
        headers: { 'x-api-key': key },
      });
      expect(listed.status).to.equal(200);
      jobs.push(...listed.body.jobs.map((job) => job.job_id));
    }
    expect(jobs).to.deep.equal([created]);
  });
});

/*
 * The narrower window: a kill after the answer's exchange was stored in the conversation and
 * before its reply was recorded as sent (nothing is sent then). On PostgreSQL, the test holds a
 * lock on the delivery log's table so that the reply's record waits, sees the exchange stored,
 * kills the gateway and ends the waiting insert (as the kill would have). The gateway restarted
 * sends the stored answer: one reply, the model not asked again, the exchange stored once.
 */
describeWithPostgres('e2e: a chat answer killed after its exchange was stored, before its reply was recorded', function () {
  this.timeout(120_000);

  let tg: FakeTelegram | undefined;
  let llm: FakeOpenAi | undefined;
  let database: ScratchDatabase | undefined;
  let first: GatewayProcess | undefined;
  let second: GatewayProcess | undefined;
  let locker: pg.Client | undefined;
  let watcher: pg.Client | undefined;

  after(async () => {
    await locker?.query('rollback').catch(() => undefined);
    await Promise.all([locker?.end().catch(() => undefined), watcher?.end().catch(() => undefined)]);
    await first?.kill();
    await second?.stop();
    await Promise.all([tg?.close(), llm?.close()]);
    await database?.drop();
  });

  it('the restarted gateway sends the stored answer once, asks the model nothing, and the conversation holds the exchange once', async () => {
    [tg, llm, database] = await Promise.all([startFakeTelegram([TOKEN]), startFakeOpenAi(), createScratchDatabase()]);
    const env = {
      DATABASE_URL: database.url,
      DATA_DIR: await tempDir('e2e-chat-exchange-kill'),
      TRIGGERS_FILE: join(await tempDir('e2e-chat-exchange-kill-notriggers'), 'NONE.json'),
      MESSAGING_BOT_TOKEN: TOKEN,
      MESSAGING_WEBHOOK_SECRET: SECRET,
      MESSAGING_API_URL: tg.url,
      MESSAGING_ALLOWED_CHAT_IDS: String(CHAT),
      JOB_AGENT_COMMAND: 'echo done',
      LLM_PROVIDER: 'custom',
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'fake-model',
      CUSTOM_API_KEY: 'sk-fake-custom-key',
      LLM_MAX_RETRIES: '0',
      QUEUE_SUPERVISE_SECONDS: '1',
    };
    first = await startGateway(env);
    watcher = new pg.Client({ connectionString: database.url });
    locker = new pg.Client({ connectionString: database.url });
    await Promise.all([watcher.connect(), locker.connect()]);
    const count = async (query: string): Promise<number> => Number((await watcher!.query(query)).rows[0].n);

    llm.script([{ toolCalls: [{ name: 'create_job', arguments: { job: 'Fix the login bug' } }] }, { text: 'Job started' }]);
    const releaseModel = llm.hold();
    const update = {
      update_id: 900_000_101,
      message: {
        message_id: 8,
        date: Math.floor(Date.now() / 1000),
        chat: { id: CHAT, type: 'private', first_name: 'Ada' },
        from: { id: CHAT, is_bot: false, first_name: 'Ada' },
        text: 'Please fix the login bug',
      },
    };
    const answer = await send(`${first.url}/api/messaging/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
      body: JSON.stringify(update),
    });
    expect(answer.status).to.equal(200);
    await waitFor(() => llm!.requests.length >= 1, 20_000, "the model's first request");
    // The update is recorded; from now on nothing is recorded in the delivery log until the lock goes.
    await locker.query('begin');
    await locker.query('lock table codehost_deliveries in share mode');
    releaseModel();

    const waitingRecord = "select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%insert into \"codehost_deliveries\"%'";
    let stored = 0;
    let waiting = 0;
    await waitFor(
      async () => {
        stored = await count('select count(*) as n from chat_turns');
        waiting = await count(waitingRecord);
        return stored === 2 && waiting > 0;
      },
      30_000,
      'the exchange stored and the reply record waiting',
    );
    const asked = llm.requests.length;
    expect(
      tg.of('sendMessage').filter((call) => String(call.body.chat_id) === String(CHAT)),
      'nothing sent before the kill',
    ).to.deep.equal([]);

    await first.kill();
    first = undefined;
    // The killed process's insert would run once the lock goes: it is ended as the kill ends it.
    await watcher.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%insert into \"codehost_deliveries\"%'",
    );
    await locker.query('rollback');

    // Should the model be asked again, it would word the job anew.
    llm.script([{ toolCalls: [{ name: 'create_job', arguments: { job: 'Repair the login form' } }] }, { text: 'Job started again' }]);
    second = await startGateway(env);
    const replies = () =>
      tg!.of('sendMessage').filter((call) => String(call.body.chat_id) === String(CHAT) && !/^Job [0-9a-f-]{36} /.test(String(call.body.text)));
    await waitFor(() => replies().length >= 1, 60_000, 'the reply of the attempt run again');
    await queuesDrained(second.url);

    expect(replies().map((call) => call.body.text)).to.deep.equal(['Job started']);
    expect(llm.requests.length, 'the model was not asked again').to.equal(asked);
    expect(await count('select count(*) as n from chat_turns')).to.equal(2);
    expect(await count('select count(*) as n from jobs')).to.equal(1);
  });
});

/*
 * The model failing after its create_job ran (its next step answered 500, no retries): the job
 * runs all the same, and the reply says so — the apology, then the job's id and how to follow it.
 */
describe('e2e: a chat answer whose model fails after its create_job ran names the job it created', function () {
  this.timeout(90_000);

  let tg: FakeTelegram | undefined;
  let llm: FakeOpenAi | undefined;
  let gateway: GatewayProcess | undefined;

  after(async () => {
    await gateway?.stop();
    await Promise.all([tg?.close(), llm?.close()]);
  });

  it('the reply is the apology with the job id, status and branch, and how to follow it; one job', async () => {
    [tg, llm] = await Promise.all([startFakeTelegram([TOKEN]), startFakeOpenAi()]);
    gateway = await startGateway({
      DATA_DIR: await migratedDataDir('e2e-chat-answer-failed'),
      TRIGGERS_FILE: join(await tempDir('e2e-chat-answer-failed-notriggers'), 'NONE.json'),
      MESSAGING_BOT_TOKEN: TOKEN,
      MESSAGING_WEBHOOK_SECRET: SECRET,
      MESSAGING_API_URL: tg.url,
      MESSAGING_ALLOWED_CHAT_IDS: String(CHAT),
      JOB_AGENT_COMMAND: 'sleep 30',
      // The job still runs at the end: the stop gives it 1 s, not the default 10, before it is ended.
      SHUTDOWN_TIMEOUT_MS: '1000',
      LLM_PROVIDER: 'custom',
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'fake-model',
      CUSTOM_API_KEY: 'sk-fake-custom-key',
      LLM_MAX_RETRIES: '0',
    });
    llm.script([{ toolCalls: [{ name: 'create_job', arguments: { job: 'Fix the login bug' } }] }, { status: 500 }]);
    const answer = await send(`${gateway.url}/api/messaging/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
      body: JSON.stringify({
        update_id: 900_000_201,
        message: {
          message_id: 9,
          date: Math.floor(Date.now() / 1000),
          chat: { id: CHAT, type: 'private', first_name: 'Ada' },
          from: { id: CHAT, is_bot: false, first_name: 'Ada' },
          text: 'Please fix the login bug',
        },
      }),
    });
    expect(answer.status).to.equal(200);
    const replies = () => tg!.of('sendMessage').filter((call) => String(call.body.chat_id) === String(CHAT));
    await waitFor(() => replies().length >= 1, 30_000, 'the reply');
    const [created] = toolJobIds(llm.requests);
    expect(created).to.match(UUID);
    const text = String(replies()[0].body.text);
    expect(text).to.include('Sorry, I encountered an error processing your message.');
    expect(text).to.include(`job ${created} (queued, branch job/${created})`);
    expect(text).to.include('You will get a message here when it finishes');

    const key = await createKey(gateway.env, 'chat-answer-failed');
    const listed = await send<{ jobs: Array<{ job_id: string }> }>(`${gateway.url}/api/jobs/status`, { headers: { 'x-api-key': key } });
    expect(listed.body.jobs.map((job) => job.job_id)).to.deep.equal([created]);
  });
});
