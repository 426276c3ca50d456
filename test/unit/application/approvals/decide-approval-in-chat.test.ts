import { expect } from 'chai';
import { DecideApprovalInChat } from '../../../../src/application/approvals/approvals-in-chat.js';
import { DecideApproval } from '../../../../src/application/approvals/decide-approval.js';
import { FireTriggers } from '../../../../src/application/triggers/fire-triggers.js';
import type { ChatChannel } from '../../../../src/application/messaging/messaging-channels.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import type { Approval } from '../../../../src/domain/approvals/approval.js';
import { actionFingerprint } from '../../../../src/domain/triggers/action-fingerprint.js';
import type { Trigger } from '../../../../src/domain/triggers/trigger.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import type { ChoiceButtons, ChoiceMade } from '../../../../src/ports/messaging-channel.js';
import { FakeMessagingChannel } from '../../../fakes/fake-messaging-channel.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryActionRunRepository } from '../../../fakes/in-memory-action-run-repository.js';
import { InMemoryApprovalStore } from '../../../fakes/in-memory-approval-store.js';
import { InMemoryBotTokenStore } from '../../../fakes/in-memory-bot-token-store.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../../fakes/in-memory-trigger-lanes.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';

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

  describe('approved after a reload (the decision, the run and the trigger set in memory)', () => {
    const { triggers } = validateTriggers(
      [
        {
          name: 'deploy',
          watch_path: '/webhook',
          enabled: true,
          actions: [
            { type: 'command', command: 'echo build' },
            { type: 'command', command: 'deploy', approval: true },
          ],
        },
      ],
      'test',
      triggerCatalog(),
    );
    const RUN = '30000000-0000-4000-8000-000000000001';

    /** The answer in the approval chat to Approve pressed once `live` is the trigger set in force. */
    const answerTo = async (live: readonly Trigger[]): Promise<string[]> => {
      const clock = new FixedClock();
      const approvals = new InMemoryApprovalStore();
      const runs = new InMemoryActionRunRepository();
      const logger = new RecordingLogger();
      await approvals.request({
        id: APPROVAL,
        runId: RUN,
        trigger: 'deploy',
        actionIndex: 1,
        actionType: 'command',
        summary: 'command: deploy',
        requestId: null,
        watchPath: '/webhook',
        firedAt: clock.now().toISOString(),
        status: 'pending',
        createdAt: clock.now(),
        expiresAt: new Date(clock.now().getTime() + 60_000),
        decidedBy: null,
        decidedAt: null,
      });
      // The record of the action that waits, with what the action was when it asked.
      await runs.save({
        runId: RUN,
        trigger: 'deploy',
        actionIndex: 1,
        type: 'command',
        status: 'awaiting_approval',
        attempts: 0,
        startedAt: clock.now(),
        finishedAt: clock.now(),
        error: null,
        detail: { approvalId: APPROVAL, action: actionFingerprint(triggers[0].actions[1]) },
      });
      const queue = new InMemoryTaskQueue();
      const fire = new FireTriggers(
        { current: () => live },
        new InMemoryInboundRequestStore(),
        queue,
        new SequentialIds(),
        clock,
        logger,
        new InMemoryTriggerLanes(),
      );
      const settled: string[] = [];
      const platform = Object.assign(new FakeMessagingChannel(), {
        buttons: { ask: async () => undefined, settle: async (_token: string, _choice: ChoiceMade, outcome: string) => void settled.push(outcome) },
      });
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
      const inChat = new DecideApprovalInChat(new DecideApproval(approvals, runs, fire, clock, logger), logger);
      await inChat.execute(channel, { data: `agw-approve:${APPROVAL}`, chatId: '7', userId: '1', userName: '@ada', messageId: '9' });
      await inChat.told();
      expect(queue.tasks, 'the run is queued all the same (it closes the record that waited)').to.have.length(1);
      return settled;
    };

    it('says the action runs when the trigger and the action are as they were', async () => {
      expect(await answerTo(triggers)).to.deep.equal(['Approved by Fake @ada (1): trigger "deploy", action 1 runs now.']);
    });

    it('says nothing runs when the trigger was removed, disabled, or the action changed', async () => {
      expect(await answerTo([])).to.deep.equal(['Approved by Fake @ada (1), but trigger "deploy" is no longer configured: nothing runs.']);
      expect(await answerTo([{ ...triggers[0], enabled: false }])).to.deep.equal([
        'Approved by Fake @ada (1), but trigger "deploy" is disabled: nothing runs.',
      ]);
      expect(
        await answerTo([{ ...triggers[0], actions: [triggers[0].actions[0], { type: 'command', command: 'deploy --prod', approval: true }] }]),
      ).to.deep.equal(['Approved by Fake @ada (1), but action 1 of trigger "deploy" was changed or removed since it asked: nothing runs.']);
    });
  });
});
