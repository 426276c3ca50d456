import { expect } from 'chai';
import { DecideApprovalInChat } from '../../../../src/application/approvals/approvals-in-chat.js';
import type { ChatChannel } from '../../../../src/application/messaging/messaging-channels.js';
import type { Approval } from '../../../../src/domain/approvals/approval.js';
import type { ChoiceButtons, ChoiceMade } from '../../../../src/ports/messaging-channel.js';
import { FakeMessagingChannel } from '../../../fakes/fake-messaging-channel.js';
import { InMemoryBotTokenStore } from '../../../fakes/in-memory-bot-token-store.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';

const APPROVAL = '10000000-0000-4000-8000-000000000001';

/** Buttons whose answer to a press hangs until `answer()` (a platform rate-limiting the bot). */
class SlowButtons implements ChoiceButtons {
  readonly settled: string[] = [];
  #answer!: () => void;
  readonly answering = new Promise<void>((resolve) => (this.#answer = resolve));
  async ask(): Promise<void> {}
  async settle(_token: string, _choice: ChoiceMade, outcome: string): Promise<void> {
    await this.answering;
    this.settled.push(outcome);
  }
  answer(): void {
    this.#answer();
  }
}

describe('DecideApprovalInChat', () => {
  it("decides a press and returns before the chat is told (the platform's delivery is answered at once); the chat is told after", async () => {
    const buttons = new SlowButtons();
    const platform = Object.assign(new FakeMessagingChannel(), { buttons });
    const channel = {
      platform,
      credentials: new InMemoryBotTokenStore('bot-token'),
      settings: {
        webhookSecret: 's',
        allowedChatIds: new Set<string>(),
        approvalChatId: '7',
        variables: { botToken: 'B', webhookSecret: 'S', allowedChats: 'C' },
      },
    } as unknown as ChatChannel;
    const decided: string[] = [];
    const inChat = new DecideApprovalInChat(
      {
        execute: async ({ id, decision, by }) => {
          decided.push(`${id}:${decision}:${by}`);
          return { trigger: 'deploy', actionIndex: 1 } as Approval;
        },
      },
      new RecordingLogger(),
    );
    await inChat.execute(channel, { data: `agw-approve:${APPROVAL}`, chatId: '7', userId: '1', userName: '@ada', messageId: '9' });
    expect(decided).to.deep.equal([`${APPROVAL}:approved:Fake @ada (1)`]);
    expect(buttons.settled, 'not told yet: its answer hangs').to.deep.equal([]);
    buttons.answer();
    await inChat.told();
    expect(buttons.settled).to.deep.equal(['Approved by Fake @ada (1): trigger "deploy", action 1 runs now.']);
  });

  it("records who decided by the platform's id of the person as well as the handle (a handle can be another person's): by the id alone without a handle", async () => {
    const platform = Object.assign(new FakeMessagingChannel(), { buttons: { ask: async () => undefined, settle: async () => undefined } });
    const channel = {
      platform,
      credentials: new InMemoryBotTokenStore('bot-token'),
      settings: {
        webhookSecret: 's',
        allowedChatIds: new Set<string>(),
        approvalChatId: 'C0APPROVE',
        variables: { botToken: 'B', webhookSecret: 'S', allowedChats: 'C' },
      },
    } as unknown as ChatChannel;
    const by: string[] = [];
    const inChat = new DecideApprovalInChat(
      {
        execute: async (input) => {
          by.push(input.by);
          return { trigger: 'deploy', actionIndex: 0 } as Approval;
        },
      },
      new RecordingLogger(),
    );
    const press = { data: `agw-deny:${APPROVAL}`, chatId: 'C0APPROVE', messageId: '9' };
    await inChat.execute(channel, { ...press, userId: 'U0EXTERNAL', userName: '@ada' });
    await inChat.execute(channel, { ...press, userId: 'U0ADA', userName: '@ada' });
    await inChat.execute(channel, { ...press, userId: 'U0NOHANDLE' });
    expect(by).to.deep.equal(['Fake @ada (U0EXTERNAL)', 'Fake @ada (U0ADA)', 'Fake U0NOHANDLE']);
  });
});
