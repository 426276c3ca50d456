import { expect } from 'chai';
import { AI_PROVIDERS, AI_PROVIDER_NAMES } from '../../../../src/adapters/ai/ai-providers.js';
import { EnvironmentSecretStore } from '../../../../src/adapters/secrets/environment-secret-store.js';
import { ChatAgent } from '../../../../src/application/messaging/chat-agent.js';
import { CreateJob } from '../../../../src/application/jobs/create-job.js';
import { GetJobStatus } from '../../../../src/application/jobs/get-job-status.js';
import { MessagingChannels, type ChatChannel } from '../../../../src/application/messaging/messaging-channels.js';
import { NotifyChatOfJob } from '../../../../src/application/messaging/notify-chat-of-job.js';
import { APOLOGY, ReplyToChatMessage, TYPING_SETTLE_MS } from '../../../../src/application/messaging/reply-to-chat-message.js';
import { markdownToMrkdwn } from '../../../../src/adapters/messaging/slack/slack-mrkdwn.js';
import { markdownToTelegramHtml } from '../../../../src/adapters/messaging/telegram/telegram-html.js';
import type { Headroom } from '../../../../src/ports/headroom.js';
import type { Timer } from '../../../../src/ports/timer.js';
import { ManualTimer } from '../../../fakes/manual-timer.js';
import { waitFor } from '../../../support/http.js';
import type { Job } from '../../../../src/domain/jobs/job.js';
import type { ChannelMessage } from '../../../../src/domain/messaging/channel-message.js';
import { AiCallFailed } from '../../../../src/domain/ai/ai-call-failed.js';
import { FakeMessagingChannel, type FakeChannelOptions } from '../../../fakes/fake-messaging-channel.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryBotTokenStore } from '../../../fakes/in-memory-bot-token-store.js';
import { InMemoryConversationStore } from '../../../fakes/in-memory-conversation-store.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { ScriptedAiClient } from '../../../fakes/scripted-ai-client.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';

const message = (text: string, changes: Partial<ChannelMessage['metadata']> = {}, chat = '42'): ChannelMessage => ({
  threadId: chat,
  text,
  attachments: [],
  metadata: { userId: 'fake', chatTitle: 'Fake', updateId: '1', messageId: '10', edited: false, ...changes },
});

describe('ReplyToChatMessage and NotifyChatOfJob, on any channel of the registry', () => {
  const setup = (
    script: ConstructorParameters<typeof ScriptedAiClient>[0],
    options: FakeChannelOptions = {},
    token: string | null = 'bot-token',
    headroom?: Headroom,
    timer?: Timer,
  ) => {
    const ai = new ScriptedAiClient(script);
    const conversations = new InMemoryConversationStore();
    const jobs = new InMemoryJobRepository();
    const createJob = new CreateJob(
      jobs,
      new InMemoryTaskQueue(),
      new EnvironmentSecretStore({}, AI_PROVIDERS),
      new SequentialIds(),
      new FixedClock(),
      new RecordingLogger(),
      {
        llmProviders: AI_PROVIDER_NAMES,
        defaultProvider: undefined,
        defaultModel: undefined,
        unavailableReason: undefined,
      },
    );
    const agent = new ChatAgent(ai, conversations, createJob, new GetJobStatus(jobs), new SequentialIds(), {
      historyTurns: 10,
      maxSteps: 5,
      systemPrompt: async () => 'You are the bot.',
      llmProviders: AI_PROVIDER_NAMES,
    });
    const platform = new FakeMessagingChannel({ maxMessageLength: 20, ...options });
    const channel: ChatChannel = {
      platform,
      credentials: new InMemoryBotTokenStore(token ?? undefined),
      settings: {
        webhookSecret: 's',
        allowedChatIds: new Set(['42']),
        variables: { botToken: 'FAKE_TOKEN', webhookSecret: 'FAKE_SECRET', allowedChats: 'FAKE_ALLOWED_CHATS' },
      },
    };
    const channels = new MessagingChannels([channel]);
    const logger = new RecordingLogger();
    return {
      ai,
      conversations,
      jobs,
      platform,
      logger,
      reply: new ReplyToChatMessage(channels, agent, logger, undefined, headroom, timer),
      notify: new NotifyChatOfJob(channels, new FixedClock()),
    };
  };

  it('acknowledges, answers through the channel, split and formatted by it, and remembers the conversation under the channel', async () => {
    const { platform, conversations, reply } = setup([{ text: 'An answer longer than twenty characters.' }]);
    await reply.execute({ message: message('hello') });
    expect(platform.acknowledged).to.deep.equal([{ target: { chatId: '42' }, messageId: '10' }]);
    expect(platform.sent.map((s) => s.message)).to.deep.equal(platform.formatReply('An answer longer than twenty characters.'));
    expect(platform.sent.length).to.be.above(1);
    expect((await conversations.recent('fake:42', 10)).map((turn) => turn.text)).to.deep.equal(['hello', 'An answer longer than twenty characters.']);
  });

  it("takes the model's answer in only when the service has room: stored and sent once the headroom lets it go", async () => {
    let asked!: () => void;
    const waiting = new Promise<void>((resolve) => (asked = resolve));
    let open!: () => void;
    const room = new Promise<void>((resolve) => (open = resolve));
    const { ai, platform, conversations, reply } = setup([{ text: 'ok' }], {}, 'bot-token', {
      wait: () => {
        asked();
        return room;
      },
    });
    const done = reply.execute({ message: message('hello') });
    await Promise.race([
      waiting,
      done.then(() => {
        throw new Error('the reply was sent without waiting for room');
      }),
    ]);
    expect(ai.requests, 'the model was asked before the wait').to.have.length(1);
    expect(platform.sent, 'sent before there was room').to.deep.equal([]);
    expect(await conversations.recent('fake:42', 10), 'stored before there was room').to.deep.equal([]);
    open();
    await done;
    expect(platform.sent.map((s) => s.message.plain)).to.deep.equal(['ok']);
    expect((await conversations.recent('fake:42', 10)).map((turn) => turn.text)).to.deep.equal(['hello', 'ok']);
  });

  it('answers a chat that is not allowed with one hint naming its id and the variable the operator uses, without the AI', async () => {
    // A limit every real channel has (100 characters at least: the contract's floor), so that the hint is one message.
    const { platform, ai, reply } = setup([], { maxMessageLength: 100 });
    await reply.execute({ message: message('let me in', {}, '77') });
    expect(ai.requests).to.deep.equal([]);
    expect(platform.sent.map((s) => s.message.plain)).to.deep.equal([
      'This chat is not allowed to use this bot. Its id is 77: add it to FAKE_ALLOWED_CHATS to allow it.',
    ]);
  });

  it("names a file it could not read as typed, on Telegram and Slack: a file name's link is no link in the gateway's own line", async () => {
    const { platform, reply } = setup([{ text: 'ok' }], { maxMessageLength: 4096 });
    const fileName = '[Your session expired - sign in again](https://evil.example/signin)';
    await reply.execute({
      message: { ...message('see the file'), attachments: [{ kind: 'document', fileId: 'f1', fileName, mimeType: 'application/zip' }] },
    });
    const [sent] = platform.sent.map((s) => s.message.plain);
    const html = markdownToTelegramHtml(sent);
    const mrkdwn = markdownToMrkdwn(sent);
    expect(html.split('\n')[0]).to.equal(`(I could not read a file "${fileName}".)`);
    expect(mrkdwn.split('\n')[0]).to.equal(`(I could not read a file "${fileName}".)`);
    expect(html).to.not.include('<a ');
    expect(mrkdwn).to.not.match(/<https?:/);
  });

  it('sends the model only images of the types every provider reads (JPEG, PNG, GIF, WebP); a file of another image type is named as one it could not read', async () => {
    // Before, any `image/*` file went to the model as an image: Anthropic's API takes
    // image/jpeg, png, gif and webp only, OpenAI's the same, and refuses the whole request for
    // another (an iPhone's HEIC sent as a file, an SVG, a BMP, a TIFF), so the message got the
    // apology instead of an answer.
    const { ai, platform, reply } = setup([{ text: 'ok' }], { maxMessageLength: 4096 });
    const bytes = new Uint8Array([1, 2, 3, 4]);
    const attachments = [
      { kind: 'document' as const, fileId: platform.addFile('documents/drawing.svg', bytes), fileName: 'drawing.svg', mimeType: 'image/svg+xml' },
      { kind: 'document' as const, fileId: platform.addFile('documents/IMG_1.HEIC', bytes), fileName: 'IMG_1.HEIC', mimeType: 'image/heic' },
      { kind: 'document' as const, fileId: platform.addFile('documents/scan.tiff', bytes), fileName: 'scan.tiff', mimeType: 'image/tiff' },
      { kind: 'document' as const, fileId: platform.addFile('documents/chart.png', bytes), fileName: 'chart.png', mimeType: 'image/png' },
      { kind: 'photo' as const, fileId: platform.addFile('photos/p.jpg', bytes) },
      // Slack's files of any image type come as photos.
      { kind: 'photo' as const, fileId: platform.addFile('files/logo.svg', bytes), fileName: 'logo.svg', mimeType: 'image/svg+xml' },
      { kind: 'photo' as const, fileId: platform.addFile('files/anim.gif', bytes), fileName: 'anim.gif', mimeType: 'image/gif' },
    ];
    await reply.execute({ message: { ...message('look'), attachments } });
    expect(ai.requests[0].messages.at(-1)?.images?.map((image) => image.mediaType)).to.deep.equal(['image/png', 'image/jpeg', 'image/gif']);
    expect(platform.sent[0].message.plain.split('\n')[0]).to.equal(
      '(I could not read a file "drawing.svg", a file "IMG\\_1.HEIC", a file "scan.tiff", a photo "logo.svg".)',
    );
  });

  it("sends an attached text file's content with its message only: the conversation keeps the typed text and a note naming the file and its size", async () => {
    const { ai, platform, conversations, reply } = setup([{ text: 'read it' }, { text: 'ok' }], { maxMessageLength: 4096 });
    const content = `${'log line\n'.repeat(50 * 1024)}THE END`;
    const fileId = platform.addFile('documents/build.log', new TextEncoder().encode(content));
    await reply.execute({
      message: { ...message('why did the build fail?'), attachments: [{ kind: 'document', fileId, fileName: 'build.log', mimeType: 'text/plain' }] },
    });
    // The model reads the file with the message it came with.
    expect(ai.requests[0].messages.at(-1)?.text).to.contain('why did the build fail?').and.contain(content);
    const note = '[The user attached the text file build.log (450 KB); its content was read with this message and is not kept.]';
    expect((await conversations.recent('fake:42', 10)).map((turn) => turn.text)).to.deep.equal([`why did the build fail?\n\n${note}`, 'read it']);
    // A later message sends the note, not the file again.
    await reply.execute({ message: message('thanks', { updateId: '2', messageId: '11' }) });
    const later = ai.requests[1].messages.map((m) => m.text).join('\n');
    expect(later).to.contain(note).and.not.contain('log line');
    expect(later.length).to.be.below(2000);
  });

  it('answers a failed AI call with the fixed apology and logs the classified reason', async () => {
    const { platform, logger, reply } = setup([new AiCallFailed('refused', 'The openai model call failed: Incorrect API key', { httpStatus: 401 })]);
    await reply.execute({ message: message('hello', { updateId: '7' }) });
    expect(platform.sent.map((s) => s.message.plain).join(' '), 'split at its spaces').to.equal(APOLOGY);
    const entry = logger.entries.find((e) => e.message === 'AI call failed');
    expect(entry?.level).to.equal('error');
    expect(entry?.fields).to.include({ reason: 'refused', chatId: '42', updateId: '7' });
  });

  it('logs a failure that is not a classified AI failure as other', async () => {
    const { logger, reply } = setup([new Error('the conversation store is down')]);
    await reply.execute({ message: message('hello') });
    expect(logger.entries.find((e) => e.message === 'AI call failed')?.fields).to.include({ reason: 'other' });
  });

  it('sends the apology when the AI fails', async () => {
    const { platform, reply } = setup([new Error('model down')]);
    await reply.execute({ message: message('hello') });
    expect(platform.sent.map((s) => s.message.plain).join(' '), 'split at its spaces').to.equal(APOLOGY);
  });

  it("shows no typing on a platform without an indicator, and repeats it at the platform's pace on one with", async () => {
    const without = setup([{ text: 'ok' }]);
    await without.reply.execute({ message: message('hello') });
    expect(without.platform.typing).to.deep.equal([]);
    const withTyping = setup([{ text: 'ok' }], { typingRefreshMs: 60_000 });
    await withTyping.reply.execute({ message: message('hello') });
    expect(withTyping.platform.typing).to.deep.equal([{ chatId: '42' }]);
  });

  it('keeps typing while the AI works and while the parts go out, and stops before the last part (a refresh under way answered first), also after an AI failure', async () => {
    for (const outcome of [{ text: 'a reply long enough to be sent in three parts' }, new Error('model down')]) {
      const timer = new ManualTimer();
      const { ai, platform, reply } = setup([outcome], { typingRefreshMs: 4000 }, 'bot-token', undefined, timer);
      const events: string[] = [];
      const sendTyping = platform.sendTyping.bind(platform);
      platform.sendTyping = async (...args) => {
        events.push('typing');
        return sendTyping(...args);
      };
      const sendMessage = platform.sendMessage.bind(platform);
      let sends = 0;
      platform.sendMessage = async (...args) => {
        events.push('part');
        // a refresh comes due while the first part goes out (a rate limit's wait, say)
        if (++sends === 1) timer.fire();
        return sendMessage(...args);
      };
      const generate = ai.generate.bind(ai);
      ai.generate = async (request) => {
        // two refreshes come due while the AI works
        timer.fire();
        timer.fire();
        return generate(request);
      };
      await reply.execute({ message: message('hello') });
      expect(events, String(outcome)).to.deep.equal(['typing', 'typing', 'typing', 'part', 'typing', 'part', 'part']);
      expect(timer.waits, String(outcome)).to.deep.equal([4000, 4000, 4000, 4000, TYPING_SETTLE_MS]);
      expect(timer.armed, `${String(outcome)}: no refresh left armed`).to.equal(0);
    }
  });

  it('sends no typing refresh while one is under way: the next goes once it was answered and its pace has passed', async () => {
    const timer = new ManualTimer();
    const { ai, platform, reply } = setup([{ text: 'ok' }], { typingRefreshMs: 4000 }, 'bot-token', undefined, timer);
    const answers: Array<() => void> = [];
    const options: unknown[] = [];
    platform.sendTyping = (_token, _target, given) => {
      options.push(given);
      return new Promise<void>((answered) => answers.push(answered));
    };
    const generate = ai.generate.bind(ai);
    ai.generate = async (request) => {
      expect(answers.length).to.equal(1);
      // Two refreshes come due while the first indicator is still under way (a slow platform): none is sent.
      timer.fire();
      timer.fire();
      expect(answers.length, 'calls while one is under way').to.equal(1);
      answers[0]();
      await waitFor(() => answers.length === 2, 5000, 'the refresh due once the first was answered');
      answers[1]();
      return generate(request);
    };
    const replied = reply.execute({ message: message('hello') });
    await waitFor(() => timer.waits.at(-1) === TYPING_SETTLE_MS, 5000, 'the reply to wait for the refresh under way');
    await replied;
    expect(answers.length).to.equal(2);
    // Each indicator is one attempt: a lost one is made good by the next.
    expect(options).to.deep.equal([{ once: true }, { once: true }]);
    expect(timer.armed, 'no refresh left armed').to.equal(0);
  });

  it('asks nothing of the platform while it rate-limits typing (429): the next indicator waits the retry_after it asked for, one call each', async () => {
    const timer = new ManualTimer();
    const { ai, platform, reply } = setup([{ text: 'ok' }], { typingRefreshMs: 4000 }, 'bot-token', undefined, timer);
    let calls = 0;
    platform.sendTyping = async () => {
      calls++;
      // A flood wait: "retry after 30" (Telegram's 429), as the adapters' errors carry it.
      throw Object.assign(new Error('Too Many Requests: retry after 30'), { status: 429, retryAfterMs: 30_000 });
    };
    const generate = ai.generate.bind(ai);
    ai.generate = async (request) => {
      await waitFor(() => timer.waits.length === 2, 5000, 'the rate limit to be waited out');
      // The 4 s pace gave way to the 30 s the platform asked for: nothing before then.
      expect(timer.waits).to.deep.equal([4000, 30_000]);
      expect(timer.armed).to.equal(1);
      expect(calls).to.equal(1);
      // The model takes long: each 30 s wait over, one indicator, limited again.
      for (let wait = 1; wait <= 3; wait++) {
        timer.fire();
        await waitFor(() => timer.waits.length === 2 + 2 * wait, 5000, 'the next rate-limit wait');
        expect(calls).to.equal(1 + wait);
      }
      return generate(request);
    };
    const replied = reply.execute({ message: message('hello') });
    await waitFor(() => timer.waits.at(-1) === TYPING_SETTLE_MS, 5000, 'the reply to wait for the refresh under way');
    await replied;
    expect(calls).to.equal(4);
    expect(timer.waits).to.deep.equal([4000, 30_000, 4000, 30_000, 4000, 30_000, 4000, 30_000, TYPING_SETTLE_MS]);
    expect(platform.sent.map((sent) => sent.message.plain)).to.deep.equal(['ok']);
    expect(timer.armed, 'no refresh left armed').to.equal(0);
  });

  it('waits for a typing refresh under way a moment only: one that hangs (its retries) holds the reply back TYPING_SETTLE_MS at most', async () => {
    const timer = new ManualTimer();
    const { platform, reply } = setup([{ text: 'ok' }], { typingRefreshMs: 4000 }, 'bot-token', undefined, timer);
    platform.sendTyping = () => new Promise<void>(() => undefined); // never answered
    let done = false;
    const replied = reply.execute({ message: message('hello') }).then(() => (done = true));
    await waitFor(() => timer.waits.at(-1) === TYPING_SETTLE_MS, 5000, 'the reply to wait for the refresh under way');
    expect(done).to.equal(false);
    expect(platform.sent).to.deep.equal([]);
    timer.fire();
    await replied;
    expect(platform.sent.map((sent) => sent.message.plain)).to.deep.equal(['ok']);
  });

  it('drops a message of a channel it does not have, and one without a bot token', async () => {
    const { platform, reply, logger } = setup([]);
    await reply.execute({ message: { ...message('hello'), metadata: { ...message('hello').metadata, userId: 'gone' } } });
    expect(logger.entries.map((e) => e.message)).to.include('message of a channel this gateway does not have; dropped');
    const tokenless = setup([], {}, null);
    await tokenless.reply.execute({ message: message('hello') });
    expect([...platform.sent, ...tokenless.platform.sent]).to.deep.equal([]);
  });

  it('answers a task stored before ids were strings (numbers), acknowledging the message by its id', async () => {
    const { platform, reply } = setup([{ text: 'ok' }]);
    const legacy = message('hello') as unknown as { metadata: Record<string, unknown> };
    legacy.metadata = { ...legacy.metadata, updateId: 700, messageId: 12, topicId: 3 };
    await reply.execute({ message: legacy as unknown as ChannelMessage });
    expect(platform.acknowledged).to.deep.equal([{ target: { chatId: '42', topicId: '3' }, messageId: '12' }]);
    expect(platform.sent[0].target).to.deep.equal({ chatId: '42', topicId: '3' });
  });

  describe('threads', () => {
    it('keeps one conversation per chat where threads are not conversations, and one per thread where they are', async () => {
      const chat = setup([{ text: 'a' }, { text: 'b' }]);
      await chat.reply.execute({ message: message('one', { topicId: 't1' }) });
      await chat.reply.execute({ message: message('two', { topicId: 't2' }) });
      expect((await chat.conversations.recent('fake:42', 10)).map((turn) => turn.text)).to.deep.equal(['one', 'a', 'two', 'b']);
      const threads = setup([{ text: 'a' }, { text: 'b' }], { threadsAreConversations: true });
      await threads.reply.execute({ message: message('one', { topicId: 't1' }) });
      await threads.reply.execute({ message: message('two', { topicId: 't2' }) });
      expect((await threads.conversations.recent('fake:42:t1', 10)).map((turn) => turn.text)).to.deep.equal(['one', 'a']);
      expect((await threads.conversations.recent('fake:42:t2', 10)).map((turn) => turn.text)).to.deep.equal(['two', 'b']);
    });

    it('announces a finished job in the conversation it was created from, its thread included', async () => {
      const { platform, jobs, notify, reply } = setup([{ text: 'Started', calls: [{ name: 'create_job', input: { job: 'Fix it' } }] }], {
        threadsAreConversations: true,
        maxMessageLength: 500,
      });
      await reply.execute({ message: message('please fix it', { topicId: 't9' }) });
      const [job] = jobs.jobs.values();
      expect(job.source).to.deep.equal({ kind: 'chat', thread: 'fake:42:t9' });
      await notify.execute({ ...job, status: 'succeeded', prUrl: 'https://example.com/pr/1' } as Job);
      const notice = platform.sent.at(-1)!;
      expect(notice.target).to.deep.equal({ chatId: '42', topicId: 't9' });
      // The address as literal Markdown: shown as it is by the platforms' formatters.
      expect(notice.message.plain).to.contain(`Job ${job.id} succeeded.`).and.contain('Pull request: https\\://example.com/pr/1');
    });

    it("announces a finished job in the thread (forum topic) it was asked in, also where threads are not conversations of their own (Telegram's topics share the chat's)", async () => {
      // Before, the job's source was the conversation (`fake:42`) alone: its notice went to the
      // chat without its topic, which on Telegram is the forum's General topic, not the one asked in.
      const { platform, jobs, notify, reply, conversations } = setup([{ text: 'Started', calls: [{ name: 'create_job', input: { job: 'Fix it' } }] }], {
        maxMessageLength: 500,
      });
      await reply.execute({ message: message('please fix it', { topicId: 't9' }) });
      expect((await conversations.recent('fake:42', 10)).map((turn) => turn.text)).to.deep.equal(['please fix it', 'Started']);
      const [job] = jobs.jobs.values();
      await notify.execute({ ...job, status: 'succeeded', prUrl: 'https://example.com/pr/1' } as Job);
      expect(platform.sent.at(-1)!.target).to.deep.equal({ chatId: '42', topicId: 't9' });
      // A message in no topic: the chat, as before.
      const plain = setup([{ text: 'Started', calls: [{ name: 'create_job', input: { job: 'Fix it' } }] }], { maxMessageLength: 500 });
      await plain.reply.execute({ message: message('please fix it') });
      const [other] = plain.jobs.jobs.values();
      expect(other.source).to.deep.equal({ kind: 'chat', thread: 'fake:42' });
      await plain.notify.execute({ ...other, status: 'succeeded', prUrl: null } as Job);
      expect(plain.platform.sent.at(-1)!.target).to.deep.equal({ chatId: '42' });
    });

    it('announces nothing for a job of another source or of a channel it does not have', async () => {
      const { platform, notify } = setup([]);
      const base = { id: 'j1', status: 'succeeded', branch: 'job/j1', prUrl: null, summary: null, error: null } as unknown as Job;
      await notify.execute({ ...base, source: { kind: 'api' } });
      await notify.execute({ ...base, source: { kind: 'chat', thread: 'web:abc' } });
      await notify.execute({ ...base, source: { kind: 'chat', thread: 'gone:42' } });
      expect(platform.sent).to.deep.equal([]);
    });
  });
});
