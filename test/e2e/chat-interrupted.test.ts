import { expect } from 'chai';
import { join } from 'node:path';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-open-ai.js';
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram.js';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey, queuesDrained, send, waitFor } from '../support/http.js';

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
