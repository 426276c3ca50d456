import { expect } from 'chai';
import { ChatAgent } from '../../../src/application/ChatAgent.js';
import { CreateJob } from '../../../src/application/CreateJob.js';
import { GetJobStatus } from '../../../src/application/GetJobStatus.js';
import { APOLOGY, ReplyToChatMessage } from '../../../src/application/ReplyToChatMessage.js';
import { EnvironmentSecretStore } from '../../../src/adapters/secrets/EnvironmentSecretStore.js';
import { AiCallFailed } from '../../../src/domain/ai/AiCallFailed.js';
import type { MessagingChannel } from '../../../src/ports/MessagingChannel.js';
import { FixedClock } from '../../fakes/FixedClock.js';
import { InMemoryConversationStore } from '../../fakes/InMemoryConversationStore.js';
import { InMemoryJobRepository } from '../../fakes/InMemoryJobRepository.js';
import { InMemoryTaskQueue } from '../../fakes/InMemoryTaskQueue.js';
import { RecordingLogger } from '../../fakes/RecordingLogger.js';
import { ScriptedAiClient } from '../../fakes/ScriptedAiClient.js';
import { SequentialIds } from '../../fakes/SequentialIds.js';

/** A channel that records the texts it sends. */
const recordingChannel = (): MessagingChannel & { sent: string[] } => {
  const sent: string[] = [];
  return {
    id: 'telegram',
    title: 'Telegram',
    maxMessageLength: 4096,
    sent,
    setWebhook: async () => undefined,
    getWebhookInfo: async () => ({ url: '', hasCustomCertificate: false, pendingUpdateCount: 0 }),
    sendMessage: async (_token, _target, message) => void sent.push(message.plain),
    sendTyping: async () => undefined,
    react: async () => undefined,
    download: async () => ({ data: new Uint8Array(), path: '' }),
  };
};

const replyWith = (failure: Error) => {
  const jobs = new InMemoryJobRepository();
  const createJob = new CreateJob(jobs, new InMemoryTaskQueue(), new EnvironmentSecretStore({}), new SequentialIds(), new FixedClock(), new RecordingLogger(), {
    defaultProvider: undefined,
    defaultModel: undefined,
    unavailableReason: undefined,
  });
  const agent = new ChatAgent(new ScriptedAiClient([failure]), new InMemoryConversationStore(), createJob, new GetJobStatus(jobs), new SequentialIds(), {
    historyTurns: 4,
    maxSteps: 1,
    systemPrompt: async () => 'You are the bot.',
  });
  const channel = recordingChannel();
  const logger = new RecordingLogger();
  const tokens = { current: async () => 'bot-token', webhookSecret: async () => undefined, register: async () => undefined };
  const reply = new ReplyToChatMessage(channel, tokens, agent, { allowedChatIds: new Set(['42']) }, logger);
  return { reply, channel, logger };
};

const task = {
  message: { threadId: '42', text: 'hello', attachments: [], metadata: { messageId: 1, updateId: 7, userId: '5', chatTitle: 'Team' } },
} as unknown as Parameters<ReplyToChatMessage['execute']>[0];

describe('ReplyToChatMessage', () => {
  it('answers a failed AI call with the fixed apology and logs the classified reason', async () => {
    const { reply, channel, logger } = replyWith(new AiCallFailed('refused', 'The openai model call failed: Incorrect API key', { httpStatus: 401 }));
    await reply.execute(task);
    expect(channel.sent).to.deep.equal([APOLOGY]);
    const entry = logger.entries.find((e) => e.message === 'AI call failed');
    expect(entry?.level).to.equal('error');
    expect(entry?.fields).to.include({ reason: 'refused', chatId: '42', updateId: 7 });
  });

  it('logs a failure that is not a classified AI failure as other', async () => {
    const { reply, logger } = replyWith(new Error('the conversation store is down'));
    await reply.execute(task);
    expect(logger.entries.find((e) => e.message === 'AI call failed')?.fields).to.include({ reason: 'other' });
  });
});
