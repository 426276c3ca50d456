import { expect } from 'chai';
import { AI_PROVIDER_NAMES, AI_PROVIDERS } from '../../../../src/adapters/ai/ai-providers.js';
import { EnvironmentSecretStore } from '../../../../src/adapters/secrets/environment-secret-store.js';
import { CreateJob } from '../../../../src/application/jobs/create-job.js';
import { GetJobStatus } from '../../../../src/application/jobs/get-job-status.js';
import { CHAT_MESSAGE_SOURCE, ChatAgent, TRANSCRIPT_SOURCE } from '../../../../src/application/messaging/chat-agent.js';
import { MessagingChannels } from '../../../../src/application/messaging/messaging-channels.js';
import { ReplyToChatMessage } from '../../../../src/application/messaging/reply-to-chat-message.js';
import { CANNOT_READ_VOICE, VOICE_FAILED, VOICE_SILENT, voiceTooLarge } from '../../../../src/application/messaging/transcribe-speech.js';
import { DomainError } from '../../../../src/domain/errors/domain-error.js';
import type { Attachment, ChannelMessage } from '../../../../src/domain/messaging/channel-message.js';
import type { DownloadedFile } from '../../../../src/ports/messaging-channel.js';
import { FakeMessagingChannel } from '../../../fakes/fake-messaging-channel.js';
import { FakeTranscriber } from '../../../fakes/fake-transcriber.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryBotTokenStore } from '../../../fakes/in-memory-bot-token-store.js';
import { InMemoryConversationStore } from '../../../fakes/in-memory-conversation-store.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { ScriptedAiClient } from '../../../fakes/scripted-ai-client.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';

/** A fake platform with files: downloads honour the size limit as the port says. */
class FilesChannel extends FakeMessagingChannel {
  readonly files = new Map<string, Uint8Array>();
  readonly downloads: Array<{ fileId: string; maxBytes: number | undefined }> = [];

  override async download(_token: string, fileId: string, maxBytes?: number): Promise<DownloadedFile> {
    this.downloads.push({ fileId, maxBytes });
    const data = this.files.get(fileId);
    if (data === undefined) throw new Error('no such file');
    if (maxBytes !== undefined && data.length > maxBytes) throw new DomainError('payload_too_large', 'too large');
    return { data, path: `voice/${fileId}.oga` };
  }
}

const voice = (fileId: string, extra: Partial<Attachment> = {}): Attachment => ({ kind: 'voice', fileId, mimeType: 'audio/ogg', ...extra });
const message = (text: string, attachments: Attachment[]): ChannelMessage => ({
  threadId: '42',
  text,
  attachments,
  metadata: { userId: 'fake', chatTitle: 'Fake', updateId: '1', messageId: '10', edited: false },
});

describe('ReplyToChatMessage: voice messages and audio', () => {
  const setup = (options: { transcriber?: FakeTranscriber | null; maxBytes?: number; script?: Array<{ text: string }> } = {}) => {
    const ai = new ScriptedAiClient(options.script ?? [{ text: 'The answer.' }]);
    const conversations = new InMemoryConversationStore();
    const jobs = new InMemoryJobRepository();
    const createJob = new CreateJob(
      jobs,
      new InMemoryTaskQueue(),
      new EnvironmentSecretStore({}, AI_PROVIDERS),
      new SequentialIds(),
      new FixedClock(),
      new RecordingLogger(),
      { llmProviders: AI_PROVIDER_NAMES, defaultProvider: undefined, defaultModel: undefined, unavailableReason: undefined },
    );
    const agent = new ChatAgent(ai, conversations, createJob, new GetJobStatus(jobs), new SequentialIds(), {
      historyTurns: 10,
      maxSteps: 5,
      systemPrompt: async () => 'You are the bot.',
      llmProviders: AI_PROVIDER_NAMES,
    });
    const platform = new FilesChannel({ maxMessageLength: 1000 });
    const transcriber = options.transcriber === null ? undefined : (options.transcriber ?? new FakeTranscriber());
    const channels = new MessagingChannels([
      {
        platform,
        credentials: new InMemoryBotTokenStore('bot-token'),
        settings: { webhookSecret: 's', allowedChatIds: new Set(['42']), variables: { botToken: 'A', webhookSecret: 'B', allowedChats: 'C' } },
      },
    ]);
    const voiceSettings = transcriber === undefined ? undefined : { transcriber, maxBytes: options.maxBytes ?? 1000 };
    const reply = new ReplyToChatMessage(channels, agent, new RecordingLogger(), voiceSettings);
    const sentTexts = () => platform.sent.map((sent) => sent.message.plain);
    return { ai, conversations, platform, transcriber, reply, sentTexts };
  };

  it('answers a voice message from its transcript, given to the model in a block that says it is a machine transcript', async () => {
    const { ai, platform, reply, sentTexts, transcriber, conversations } = setup();
    platform.files.set('v1', new TextEncoder().encode('Please list the running jobs.'));
    await reply.execute({ message: message('', [voice('v1')]) });
    expect(sentTexts()).to.deep.equal(['The answer.']);
    expect(transcriber?.clips.map((clip) => clip.mediaType)).to.deep.equal(['audio/ogg']);
    const [request] = ai.requests;
    const user = request.messages.at(-1)!;
    expect(user.text).to.match(
      new RegExp(`^<untrusted-input-(\\w+) source="${TRANSCRIPT_SOURCE.replace(/[()]/g, '\\$&')}">Please list the running jobs\\.</untrusted-input-\\1>$`),
    );
    expect(user.text).not.to.include(CHAT_MESSAGE_SOURCE);
    expect(request.system).to.include(`source="${TRANSCRIPT_SOURCE}"`);
    expect(request.system).to.include('recognition errors');
    expect((await conversations.recent('fake:42', 10))[0].text).to.equal('[Voice message, transcribed by machine:] Please list the running jobs.');
  });

  it('keeps typed text (a caption) and the transcript in separate blocks', async () => {
    const { ai, platform, reply } = setup();
    platform.files.set('a1', new TextEncoder().encode('spoken words'));
    await reply.execute({ message: message('typed caption', [{ kind: 'audio', fileId: 'a1', mimeType: 'audio/mpeg' }]) });
    const text = ai.requests[0].messages.at(-1)!.text;
    expect(text).to.include(`source="${CHAT_MESSAGE_SOURCE}">typed caption<`);
    expect(text).to.include(`source="${TRANSCRIPT_SOURCE}">spoken words<`);
  });

  it('without a transcription service, answers that it cannot read voice messages, without asking the model', async () => {
    const { ai, platform, reply, sentTexts } = setup({ transcriber: null });
    platform.files.set('v1', new TextEncoder().encode('hello'));
    await reply.execute({ message: message('', [voice('v1')]) });
    expect(sentTexts()).to.deep.equal([CANNOT_READ_VOICE]);
    expect(ai.requests).to.have.length(0);
    expect(platform.downloads).to.deep.equal([]);
  });

  it('without a transcription service, still answers the text of a message that also has a voice message, saying what it could not read', async () => {
    const { ai, reply, sentTexts } = setup({ transcriber: null });
    await reply.execute({ message: message('what is the status?', [voice('v1')]) });
    expect(ai.requests).to.have.length(1);
    expect(sentTexts()).to.deep.equal([`(${CANNOT_READ_VOICE})\n\nThe answer.`]);
  });

  it('refuses a recording over the size limit with a clear reply: by the size the platform told, or while downloading', async () => {
    const { ai, platform, reply, sentTexts } = setup({ maxBytes: 10 });
    await reply.execute({ message: message('', [voice('big', { size: 5_000_000 })]) });
    expect(platform.downloads, 'not downloaded at all').to.deep.equal([]);
    platform.files.set('unsized', new Uint8Array(11));
    await reply.execute({ message: message('', [voice('unsized')]) });
    expect(platform.downloads).to.deep.equal([{ fileId: 'unsized', maxBytes: 10 }]);
    expect(sentTexts()).to.deep.equal([voiceTooLarge(10), voiceTooLarge(10)]);
    expect(voiceTooLarge(20 * 1024 * 1024)).to.include('the limit is 20 MB');
    expect(ai.requests).to.have.length(0);
  });

  it('says so when the transcription fails or hears nothing', async () => {
    const transcriber = new FakeTranscriber();
    const { ai, platform, reply, sentTexts } = setup({ transcriber });
    platform.files.set('v1', new TextEncoder().encode('hello'));
    platform.files.set('silent', new TextEncoder().encode('   '));
    transcriber.failNext('unavailable', 503);
    await reply.execute({ message: message('', [voice('v1')]) });
    await reply.execute({ message: message('', [voice('silent')]) });
    expect(sentTexts()).to.deep.equal([VOICE_FAILED, VOICE_SILENT]);
    expect(ai.requests).to.have.length(0);
  });
});
