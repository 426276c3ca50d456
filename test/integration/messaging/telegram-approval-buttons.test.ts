import { expect } from 'chai';
import { TelegramChannel } from '../../../src/adapters/messaging/telegram/telegram-channel.js';
import { telegramEntities } from '../../../src/adapters/messaging/telegram/telegram-entities.js';
import { AnnounceApproval } from '../../../src/application/approvals/approvals-in-chat.js';
import { MessagingChannels } from '../../../src/application/messaging/messaging-channels.js';
import type { Approval } from '../../../src/domain/approvals/approval.js';
import { InMemoryBotTokenStore } from '../../fakes/in-memory-bot-token-store.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { startFakeTelegram, type FakeTelegram } from '../../support/fake-telegram.js';

const TOKEN = '123456:APPROVAL-buttons';
/** Half of a surrogate pair with no other half: text Telegram refuses as not UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('TelegramChannel approval buttons against the fake Bot API', () => {
  let tg: FakeTelegram;
  let channel: TelegramChannel;
  beforeEach(async () => {
    tg = await startFakeTelegram([TOKEN]);
    channel = new TelegramChannel({ apiUrl: tg.url, attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 5000 });
  });
  afterEach(async () => tg.close());

  it('answers a press with at most 200 characters and never half of an emoji (a trigger name with emoji at the cut), and says the outcome whole', async () => {
    // The 200th UTF-16 unit is the first half of 🚀.
    const outcome = `Approved by Telegram @ada (42): trigger "${'x'.repeat(158)}🚀🚀", action 0 runs now.`;
    expect(outcome.charCodeAt(199)).to.be.within(0xd800, 0xdbff);
    await channel.settle(TOKEN, { data: 'agw-approve:x', chatId: '-100555', userId: '42', messageId: '70', pressId: 'cq-1' }, outcome);
    const [answer] = tg.of('answerCallbackQuery');
    const toast = String(answer.body.text);
    expect(toast.length).to.be.at.most(200);
    expect(LONE_SURROGATE.test(toast), 'a lone surrogate in the answer').to.equal(false);
    expect(outcome.startsWith(toast)).to.equal(true);
    const [said] = tg.of('sendMessage');
    expect(said.body.text).to.equal(outcome);
  });

  describe('the approval question: request values shown verbatim and inert', () => {
    /** Values Telegram would turn into a mention, a link, a command, a hashtag, an address, a phone number, or markup. */
    const HOSTILE = '@someone https://evil.example/login /start #tag $USD root@evil.example +1 (555) 010-0100 <b>x</b> *y* _z_ `w` [a](https://evil.example)';
    const approval = (trigger: string, summary: string): Approval => ({
      id: '10000000-0000-4000-8000-000000000001',
      runId: '30000000-0000-4000-8000-000000000001',
      trigger,
      actionIndex: 0,
      actionType: 'command',
      summary,
      requestId: null,
      watchPath: '/webhook',
      firedAt: '2026-11-30T12:00:00.000Z',
      status: 'pending',
      createdAt: new Date('2026-11-30T12:00:00Z'),
      expiresAt: new Date('2026-11-30T12:30:00Z'),
      decidedBy: null,
      decidedAt: null,
    });
    const announce = async (asked: Approval): Promise<Record<string, unknown>> => {
      const channels = new MessagingChannels([
        {
          platform: channel,
          credentials: new InMemoryBotTokenStore(TOKEN),
          settings: {
            webhookSecret: 's',
            allowedChatIds: new Set<string>(),
            approvalChatId: '-100555',
            variables: { botToken: 'B', webhookSecret: 'S', allowedChats: 'C', approvalChat: 'A' },
          },
        },
      ]);
      const logger = new RecordingLogger();
      await new AnnounceApproval(channels, logger, 'https://gw.example').execute(asked);
      expect(logger.entries.filter((entry) => entry.level === 'warn')).to.deep.equal([]);
      const sent = tg.of('sendMessage');
      expect(sent).to.have.length(1);
      return sent[0].body;
    };
    /** What an entity covers of the text, by UTF-16 code units as Telegram counts them. */
    const covered = (text: string, entity: { offset: number; length: number }): string =>
      Buffer.from(text, 'utf16le')
        .subarray(entity.offset * 2, (entity.offset + entity.length) * 2)
        .toString('utf16le');

    it('sends the text without parse_mode, the summary as a pre entity and the trigger and path as code entities (offsets in UTF-16 units past emoji), no link preview', async () => {
      const summary = `command: deploy {{body.to}}\nAGW_ARG_1=${JSON.stringify(`🚀🚀 ${HOSTILE}`)}`;
      const body = await announce(approval('ship 🚀 it', summary));
      const heading = 'Approval needed: trigger "ship 🚀 it", action 0 (command), fired by /api/webhook.';
      const until =
        "Decide before 2026-11-30 12:30 UTC; after that it never runs. The request and the whole action are on the admin UI's Approvals page (https://gw.example/settings/approvals).";
      expect(body).to.deep.equal({
        chat_id: '-100555',
        text: `${heading}\n\n${summary}\n\n${until}`,
        entities: [
          { type: 'code', offset: 26, length: 10 },
          { type: 'code', offset: 68, length: 12 },
          { type: 'pre', offset: 83, length: summary.length },
        ],
        link_preview_options: { is_disabled: true },
        reply_markup: {
          inline_keyboard: [
            [
              { text: 'Approve', callback_data: 'agw-approve:10000000-0000-4000-8000-000000000001' },
              { text: 'Deny', callback_data: 'agw-deny:10000000-0000-4000-8000-000000000001' },
            ],
          ],
        },
      });
      const [trigger, path, block] = body.entities as Array<{ offset: number; length: number }>;
      const text = String(body.text);
      expect(covered(text, trigger)).to.equal('ship 🚀 it');
      expect(covered(text, path)).to.equal('/api/webhook');
      expect(covered(text, block)).to.equal(summary);
      // Every character of the request's value is inside the pre entity: none where Telegram detects links.
      const value = text.indexOf('@someone');
      expect(value).to.be.within(block.offset, block.offset + block.length - HOSTILE.length);
    });

    it('a question without buttons (the action too long for the chat) is sent with its trigger and path inert, and no keyboard', async () => {
      const summary = `command: deploy\nAGW_ARG_1="${'v'.repeat(4200)}"`;
      const body = await announce(approval('@ops #deploy', summary));
      expect(body).to.not.have.property('reply_markup');
      expect(body).to.not.have.property('parse_mode');
      expect(body.link_preview_options).to.deep.equal({ is_disabled: true });
      const text = String(body.text);
      expect(text).to.contain('too long to review in this chat').and.not.contain('vvvv');
      expect((body.entities as Array<{ type: string; offset: number; length: number }>).map((entity) => [entity.type, covered(text, entity)])).to.deep.equal([
        ['code', '@ops #deploy'],
        ['code', '/api/webhook'],
      ]);
    });

    it('a text cut at the limit keeps its entities within it, and never half of an emoji', () => {
      const { shown, entities } = telegramEntities(
        [{ text: 'ab' }, { text: 'c🚀d', verbatim: 'inline' }, { text: 'e' }, { text: 'f', verbatim: 'block' }, { text: '', verbatim: 'inline' }],
        4,
      );
      // The 4th unit is the first half of 🚀: the cut leaves it out.
      expect(shown).to.equal('abc');
      expect(entities).to.deep.equal([{ type: 'code', offset: 2, length: 1 }]);
      const whole = telegramEntities(
        [{ text: 'ab' }, { text: 'c🚀d', verbatim: 'inline' }, { text: '', verbatim: 'block' }, { text: 'f', verbatim: 'block' }],
        4096,
      );
      expect(whole).to.deep.equal({
        shown: 'abc🚀df',
        entities: [
          { type: 'code', offset: 2, length: 4 },
          { type: 'pre', offset: 6, length: 1 },
        ],
      });
    });
  });
});
