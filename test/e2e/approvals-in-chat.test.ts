import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack.js';
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram.js';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey, send, waitFor } from '../support/http.js';

/*
 * Approvals asked in a chat: an action with `approval: true` is put to the Telegram chat named by
 * TELEGRAM_APPROVAL_CHAT_ID with Approve and Deny buttons (an inline keyboard, on the fake Bot
 * API); a press there decides it, recorded with who pressed, and the chat is told the outcome.
 */

const TOKEN = '123456:APPROVE-token-AAAAbbbbCCCC';
const SECRET = 'approvals-webhook_secret-0123456789';
/** A trigger whose one action, approval first, appends the request's `id` to released.txt; the environment that loads it. */
const releaseTrigger = async (dir: string): Promise<Record<string, string>> => {
  const action = { type: 'command', command: `printf '%s\\n' {{body.id}} >> released.txt`, approval: true };
  await writeFile(join(dir, 'TRIGGERS.json'), JSON.stringify([{ name: 'release', watch_path: '/webhook', enabled: true, actions: [action] }]));
  return { DATA_DIR: await migratedDataDir('approvals-chat-data'), TRIGGERS_FILE: join(dir, 'TRIGGERS.json'), TRIGGERS_DIR: dir };
};

const releasedIn = async (dir: string): Promise<string[]> => (await readFile(join(dir, 'released.txt'), 'utf8').catch(() => '')).split('\n').filter(Boolean);

const APPROVAL_CHAT = -100_555;
const OTHER_CHAT = 777;

describe('e2e: approvals decided with chat buttons (Telegram)', function () {
  this.timeout(120_000);
  let tg: FakeTelegram | undefined;
  let gateway: GatewayProcess | undefined;
  let dir: string;
  let key: string;
  let updateId = 5_000;

  before(async () => {
    tg = await startFakeTelegram([TOKEN]);
    dir = await tempDir('approvals-chat');
    const env = {
      ...(await releaseTrigger(dir)),
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_API_URL: tg.url,
      TELEGRAM_ALLOWED_CHAT_IDS: `${APPROVAL_CHAT},${OTHER_CHAT}`,
      TELEGRAM_APPROVAL_CHAT_ID: String(APPROVAL_CHAT),
    };
    gateway = await startGateway(env);
    key = await createKey(env);
  });
  after(async () => {
    await gateway?.stop();
    await tg?.close();
  });

  /** Fires the trigger with `id` and waits for the question in the approval chat; returns its buttons' data, its keyboard and its message id. */
  const ask = async (id: string): Promise<{ approve: string; deny: string; keyboard: unknown; messageId: number }> => {
    const fired = await send(`${gateway!.url}/api/webhook`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ id }),
    });
    expect(fired.status).to.equal(200);
    const question = await waitFor(
      () => tg!.of('sendMessage').find((call) => String(call.body.text).includes(`AGW_ARG_1="${id}"`)),
      20_000,
      'the question in the approval chat',
    );
    expect(question.body.chat_id).to.equal(String(APPROVAL_CHAT));
    expect(String(question.body.text)).to.contain('Approval needed: trigger "release", action 0 (command)');
    const [[approve, deny]] = (question.body.reply_markup as { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> }).inline_keyboard;
    expect([approve.text, deny.text]).to.deep.equal(['Approve', 'Deny']);
    return {
      approve: approve.callback_data,
      deny: deny.callback_data,
      keyboard: question.body.reply_markup,
      messageId: tg!.of('sendMessage').indexOf(question) + 1,
    };
  };

  /** A press as Telegram delivers it: the message pressed comes along, with its keyboard as the bot sent it (`keyboard`). */
  const press = (data: string, chatId: number, messageId: number, keyboard: unknown, username = 'ada') =>
    send(`${gateway!.url}/api/messaging/telegram/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
      body: JSON.stringify({
        update_id: ++updateId,
        callback_query: {
          id: `cq-${updateId}`,
          from: { id: 42, is_bot: false, first_name: 'Ada', username },
          message: { message_id: messageId, date: Math.floor(Date.now() / 1000), chat: { id: chatId, type: 'supergroup' }, reply_markup: keyboard },
          chat_instance: 'ci',
          data,
        },
      }),
    });

  const answerOf = (pressId: string) => tg!.of('answerCallbackQuery').find((call) => call.body.callback_query_id === pressId);

  it('Approve in the approval chat runs the action once, answers the press, takes the buttons off and says who approved', async () => {
    const id = `chat-${randomUUID()}`;
    const { approve, keyboard, messageId } = await ask(id);
    expect((await press(approve, APPROVAL_CHAT, messageId, keyboard)).status).to.equal(200);
    await waitFor(async () => (await releasedIn(dir)).includes(id), 20_000, 'the approved command');
    const answer = await waitFor(() => answerOf(`cq-${updateId}`), 10_000, 'the answered press');
    expect(String(answer.body.text)).to.equal('Approved by Telegram @ada (42): trigger "release", action 0 runs now.');
    await waitFor(
      () => tg!.of('editMessageReplyMarkup').some((call) => call.body.message_id === messageId && call.body.chat_id === String(APPROVAL_CHAT)),
      10_000,
      'the buttons taken off',
    );
    // A second press (another person, later) decides nothing.
    await press(approve, APPROVAL_CHAT, messageId, keyboard, 'bob');
    const second = await waitFor(() => answerOf(`cq-${updateId}`), 10_000, 'the second press answered');
    expect(String(second.body.text)).to.equal('This approval was approved already by Telegram @ada (42)');
    expect((await releasedIn(dir)).filter((line) => line === id)).to.have.length(1);
  });

  it('a press Telegram no longer lets it answer (fetched late) is decided once, answered 200, and its outcome still said', async () => {
    const id = `late-${randomUUID()}`;
    const { approve, keyboard, messageId } = await ask(id);
    const late = {
      status: 400,
      body: { ok: false, error_code: 400, description: 'Bad Request: query is too old and response timeout expired or query ID is invalid' },
    };
    tg!.failNext('answerCallbackQuery', late);
    tg!.failNext('editMessageReplyMarkup', { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: message is not modified' } });
    expect((await press(approve, APPROVAL_CHAT, messageId, keyboard)).status).to.equal(200);
    await waitFor(async () => (await releasedIn(dir)).includes(id), 20_000, 'the approved command');
    const said = await waitFor(
      () =>
        tg!
          .of('sendMessage')
          .find(
            (call) =>
              (call.body.reply_parameters as { message_id?: number } | undefined)?.message_id === messageId && call.body.chat_id === String(APPROVAL_CHAT),
          ),
      10_000,
      'the outcome said in the chat',
    );
    expect(String(said.body.text)).to.equal('Approved by Telegram @ada (42): trigger "release", action 0 runs now.');
    expect((await releasedIn(dir)).filter((line) => line === id)).to.have.length(1);
  });

  it('Deny decides it without running; a press from another chat decides nothing', async () => {
    const id = `deny-${randomUUID()}`;
    const { approve, deny, keyboard, messageId } = await ask(id);
    await press(approve, OTHER_CHAT, messageId, keyboard);
    const refused = await waitFor(() => answerOf(`cq-${updateId}`), 10_000, 'the press from another chat answered');
    expect(String(refused.body.text)).to.equal('Approvals are decided in the approval chat only (TELEGRAM_APPROVAL_CHAT_ID).');
    await press(deny, APPROVAL_CHAT, messageId, keyboard);
    const denied = await waitFor(() => answerOf(`cq-${updateId}`), 10_000, 'the denial answered');
    expect(String(denied.body.text)).to.equal('Denied by Telegram @ada (42): trigger "release", action 0 and those after it will not run.');
    // A denial queues nothing: once it is answered, nothing is left to run.
    expect(await releasedIn(dir)).to.not.include(id);
  });

  it("a press whose data is another approval's, not a button of the message pressed (a modified client's), decides nothing and leaves that message's buttons", async () => {
    const one = await ask(`one-${randomUUID()}`);
    const twoId = `two-${randomUUID()}`;
    const two = await ask(twoId);
    // On the question of one, with the Approve data of two: acknowledged (its processing is over once answered), ignored.
    expect((await press(two.approve, APPROVAL_CHAT, one.messageId, one.keyboard)).status).to.equal(200);
    const forged = `cq-${updateId}`;
    // Two is still undecided: its own Deny decides it.
    await press(two.deny, APPROVAL_CHAT, two.messageId, two.keyboard);
    const denied = await waitFor(() => answerOf(`cq-${updateId}`), 10_000, 'the denial of two answered');
    expect(String(denied.body.text)).to.equal('Denied by Telegram @ada (42): trigger "release", action 0 and those after it will not run.');
    expect(answerOf(forged), 'the forged press answered').to.equal(undefined);
    expect(
      tg!.of('editMessageReplyMarkup').some((call) => call.body.message_id === one.messageId),
      "one's buttons taken off",
    ).to.equal(false);
    expect(await releasedIn(dir)).to.not.include(twoId);
  });
});

const SLACK_TOKEN = 'xoxb-approvals-test-token';
const SLACK_SECRET = 'slack-approvals-signing-secret';
const SLACK_APPROVAL_CHANNEL = 'C0APPROVE';

describe('e2e: approvals decided with chat buttons (Slack)', function () {
  this.timeout(120_000);
  let slack: FakeSlack | undefined;
  let gateway: GatewayProcess | undefined;
  let dir: string;
  let key: string;
  let pressed = 0;

  before(async () => {
    slack = await startFakeSlack([SLACK_TOKEN]);
    dir = await tempDir('approvals-slack');
    const env = {
      ...(await releaseTrigger(dir)),
      SLACK_BOT_TOKEN: SLACK_TOKEN,
      SLACK_SIGNING_SECRET: SLACK_SECRET,
      SLACK_API_URL: slack.url,
      SLACK_ALLOWED_CHANNEL_IDS: SLACK_APPROVAL_CHANNEL,
      SLACK_APPROVAL_CHANNEL_ID: SLACK_APPROVAL_CHANNEL,
    };
    gateway = await startGateway(env);
    key = await createKey(env);
  });
  after(async () => {
    await gateway?.stop();
    await slack?.close();
  });

  /** A press as Slack sends it to the Interactivity Request URL: a signed form whose `payload` is the JSON. */
  const press = (value: string, ts: string, text: string, signingSecret = SLACK_SECRET) => {
    pressed++;
    const payload = {
      type: 'block_actions',
      user: { id: 'U0ADA', username: 'ada' },
      channel: { id: SLACK_APPROVAL_CHANNEL },
      container: { type: 'message', channel_id: SLACK_APPROVAL_CHANNEL, message_ts: ts },
      message: { ts, text },
      actions: [{ action_id: 'agw-0', value, action_ts: `${1_700_000_000 + pressed}.000200` }],
      trigger_id: `trigger-${pressed}`,
    };
    const raw = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const timestamp = Math.floor(Date.now() / 1000);
    return send(`${gateway!.url}/api/messaging/slack/webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${raw}`).digest('hex')}`,
      },
      body: raw,
    });
  };

  it('Approve on the block buttons runs the action once; the message keeps the question and says who approved; a forged press is refused', async () => {
    const id = `slack-${randomUUID()}`;
    const fired = await send(`${gateway!.url}/api/webhook`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ id }),
    });
    expect(fired.status).to.equal(200);
    const question = await waitFor(
      () => slack!.of('chat.postMessage').find((call) => String(call.body.text).includes(id)),
      20_000,
      'the question in the approval channel',
    );
    expect(question.body.channel).to.equal(SLACK_APPROVAL_CHANNEL);
    const actions = (question.body.blocks as Array<{ type: string; elements?: Array<{ value: string; text: { text: string } }> }>).find(
      (block) => block.type === 'actions',
    )!;
    const [approve] = actions.elements!;
    expect(actions.elements!.map((button) => button.text.text)).to.deep.equal(['Approve', 'Deny']);
    const ts = '1700000001.000100';
    expect((await press(approve.value, ts, String(question.body.text), 'not-the-secret')).status).to.equal(401);
    expect((await press(approve.value, ts, String(question.body.text))).status).to.equal(200);
    await waitFor(async () => (await releasedIn(dir)).includes(id), 20_000, 'the approved command');
    const update = await waitFor(() => slack!.of('chat.update').find((call) => call.body.ts === ts), 10_000, 'the message updated');
    expect(String(update.body.text))
      .to.contain('Approval needed: trigger "release"')
      .and.to.contain('Approved by Slack @ada (U0ADA): trigger "release", action 0 runs now.');
    expect(JSON.stringify(update.body.blocks)).to.not.contain('"actions"');
    expect((await releasedIn(dir)).filter((line) => line === id)).to.have.length(1);
  });
});
