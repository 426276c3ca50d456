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
        execute: async ({ id, decision }) => {
          decided.push(`${id}:${decision}`);
          return { trigger: 'deploy', actionIndex: 1 } as Approval;
        },
      },
      new RecordingLogger(),
    );
    await inChat.execute(channel, { data: `agw-approve:${APPROVAL}`, chatId: '7', userId: '1', userName: '@ada', messageId: '9' });
    expect(decided).to.deep.equal([`${APPROVAL}:approved`]);
    expect(buttons.settled, 'not told yet: its answer hangs').to.deep.equal([]);
    buttons.answer();
    await inChat.told();
    expect(buttons.settled).to.deep.equal(['Approved by Fake @ada: trigger "deploy", action 1 runs now.']);
  });
});
