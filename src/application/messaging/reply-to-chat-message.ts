import { aiFailureReason } from '../../domain/ai/ai-call-failed.js';
import { storedMessage, type Attachment, type ChannelMessage } from '../../domain/messaging/channel-message.js';
import { albumMessage } from '../../domain/messaging/album-message.js';
import { chatThreadKey } from '../../domain/messaging/chat-thread.js';
import { markdownLiteral } from '../../domain/messaging/markdown-literal.js';
import type { AiImage } from '../../ports/ai-client.js';
import type { AlbumStore } from '../../ports/album-store.js';
import type { Clock } from '../../ports/clock.js';
import type { DeliveryLog } from '../../ports/delivery-log.js';
import type { Headroom } from '../../ports/headroom.js';
import type { Logger } from '../../ports/logger.js';
import type { MessagingChannel, OutgoingMessage, ReplyTarget } from '../../ports/messaging-channel.js';
import type { RunningTask } from '../../ports/task-queue.js';
import type { Timer } from '../../ports/timer.js';
import type { ChatAgent } from './chat-agent.js';
import { type AnswerJob, apologyWithJobs } from './chat-apology.js';
import type { ChatChannel, MessagingChannels } from './messaging-channels.js';
import { albumKey, type ChatMessageTask } from './receive-messaging-update.js';
import { isSpeech, transcribeSpeech, type VoiceTranscription } from './transcribe-speech.js';

// The apology lives with the agent, which keeps it as a failed answer's reply: the same text is sent.
export { APOLOGY, apologyWithJobs } from './chat-apology.js';

/** How long the reply's last part waits for a typing refresh under way (see #keepTyping). */
export const TYPING_SETTLE_MS = 1000;

/** The longest an album's answer waits for its messages, however often more of them arrive (an album has at most 10). */
export const MAX_ALBUM_WAIT_MS = 30_000;

/**
 * The key under which the reply of a chat task is recorded in the delivery log before its first
 * part is sent (`<channel>:reply:<task id>`): an attempt of the task that finds it sends nothing.
 */
export const replyKey = (channel: string, taskId: string): string => `${channel}:reply:${taskId}`;

/** How long a chat task may be run again after it was stored (see ReplyToChatMessage `lateRuns`). */
export interface LateRuns {
  readonly clock: Clock;
  /**
   * How long a chat answer is surely remembered (config `chatAnswerRememberedDays`: the shortest
   * of its job keys', its reply record's and its saved exchange's retention): an attempt run again
   * later than this, less LATE_RUN_MARGIN_MS, is not answered, as its jobs' keys, its reply record
   * or its saved answer may be forgotten (a second job or a second reply).
   */
  readonly keysKeptMs: number;
}

/** Room for the clocks of replicas that differ: the key is dated by the one that created it. */
export const LATE_RUN_MARGIN_MS = 60 * 60 * 1000;

/** How an album's messages are gathered for its one answer. */
export interface AlbumSettling {
  /** Where ReceiveMessagingUpdate stored each message of an album. */
  readonly store: AlbumStore;
  readonly clock: Clock;
  /** The album is answered once no message of it arrived for this long (CHAT_ALBUM_SETTLE_MS). */
  readonly settleMs: number;
}

/** Timers of the event loop, when no Timer is given (never keeping the process alive). */
const REAL_TIMER: Timer = {
  after: (ms, callback) => {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
const MAX_TEXT_FILE_BYTES = 512 * 1024;
/**
 * What one answer downloads and sends the model at most, whatever the number of files (an album
 * has up to 10): images (two of the largest; providers take about 20 MB per request) and inlined
 * text files (two of the largest). A file past a total is not downloaded and is named as one
 * that could not be read.
 */
export const MAX_IMAGE_BYTES_PER_ANSWER = 2 * MAX_IMAGE_BYTES;
export const MAX_TEXT_BYTES_PER_ANSWER = 2 * MAX_TEXT_FILE_BYTES;
/**
 * The image types sent to the model: those every provider of the registry reads (Anthropic's API
 * takes image/jpeg, png, gif and webp only, OpenAI's the same) — another (HEIC, SVG, BMP, TIFF)
 * would have the whole request refused, and the message answered with the apology. A file of
 * another image type is named as one the model cannot read. A photo without a type is a JPEG
 * (Telegram's).
 */
const MODEL_IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const modelImageType = (attachment: Attachment): string | undefined => {
  const type = attachment.mimeType
    ?.trim()
    .toLowerCase()
    .replace(/^image\/jpg$/, 'image/jpeg');
  if (attachment.kind === 'photo' && type === undefined) return 'image/jpeg';
  return type !== undefined && MODEL_IMAGE_TYPES.has(type) && (attachment.kind === 'photo' || attachment.kind === 'document') ? type : undefined;
};
const TEXT_TYPES = /^(text\/|application\/(json|xml|x-yaml|yaml|javascript|x-sh|toml|csv|sql))/;
const TEXT_NAMES = /\.(txt|md|json|ya?ml|xml|csv|log|ts|js|py|go|rs|java|c|h|cpp|sh|toml|ini|sql|html|css)$/i;

/**
 * Background processing of one chat message (SPEC 4.4), on the channel it came from:
 * acknowledge, keep a typing indicator up, ask the chat agent, reply (formatted and split by
 * the channel, with a plain-text fallback), and stop the indicator whatever happens. A failed
 * AI call gets the fixed apology (SPEC 4.4); the cause is only logged, with its classified reason.
 * Voice messages and audio are transcribed (without a transcription service, or when that fails,
 * the user is told so; a message that is nothing but such a recording is answered with that alone).
 */
export class ReplyToChatMessage {
  constructor(
    private readonly channels: MessagingChannels,
    private readonly agent: ChatAgent,
    private readonly logger: Logger,
    /** Undefined: voice messages cannot be read. */
    private readonly voice?: VoiceTranscription,
    /** When the model's answer is taken in (ChatInput `whenRoom`); undefined: at once. */
    private readonly headroom?: Headroom,
    /** Paces the typing indicator, and waits for an album's messages. */
    private readonly timer: Timer = REAL_TIMER,
    /** Without it, an album is answered from the message that queued its answer alone. */
    private readonly albums?: AlbumSettling,
    /**
     * Where the reply of a task is recorded as sent (replyKey); without it, or without the task,
     * a task run again sends its reply again.
     */
    private readonly replies?: DeliveryLog,
    /**
     * Without it, a task run again however late is answered. With it, an attempt after the first
     * of a task stored longer ago than its jobs' keys are kept is not: it could create its jobs again.
     */
    private readonly lateRuns?: LateRuns,
  ) {}

  /**
   * `running`: the queue's task (its id is the answer's key across attempts, see ChatInput
   * `answerKey`); without it, the answer is made as if for the first time.
   */
  async execute(task: ChatMessageTask, running?: Pick<RunningTask, 'id' | 'attempt'>): Promise<void> {
    const queued = storedMessage(task.message);
    const log = this.logger.child({ channel: queued.metadata.userId, chatId: queued.threadId, updateId: queued.metadata.updateId });
    const channel = this.channels.find(queued.metadata.userId);
    if (channel === undefined) return log.warn({}, 'message of a channel this gateway does not have; dropped');
    const { platform } = channel;
    const token = await channel.credentials.current();
    if (token === undefined) return log.warn({}, 'no bot token any more; message dropped');
    const sentKey = running === undefined || this.replies === undefined ? undefined : replyKey(platform.id, running.id);
    // A task run again after its reply began to go out (killed while sending it, or before the
    // queue took its end in): answered already, nothing more is asked of the model or sent.
    if (sentKey !== undefined && running!.attempt > 1 && (await this.replies!.recorded(sentKey))) {
      return log.info({ taskId: running!.id, attempt: running!.attempt }, 'chat task run again after its reply was sent; nothing more to do');
    }
    // A task run again after an outage of days: the keys naming the jobs its first attempt created
    // may be forgotten (the retention sweep), so asking the model again could create them again.
    // (The queue drops a task that waited longer than they are kept: this is the margin's edge.)
    if (this.#tooLate(task, running)) {
      return log.warn(
        { taskId: running!.id, attempt: running!.attempt, queuedAt: task.queuedAt },
        'chat task run again later than its answer is surely remembered; not answered, so that no job of it is created twice nor its reply sent again',
      );
    }
    const target: ReplyTarget = { chatId: queued.threadId, ...(queued.metadata.topicId !== undefined && { topicId: queued.metadata.topicId }) };

    // Before an album's wait: a chat that is not allowed holds no worker while its album settles.
    // ReceiveMessagingUpdate queues such a chat's notice once a day (not its messages). One
    // attempt, given up on any failure: a rate limit's wait, or the queue trying the task again,
    // would spend the bot's limit (and a worker) on a stranger's chat.
    if (!channel.settings.allowedChatIds.has(queued.threadId)) {
      log.info({}, 'message from a chat that is not allowed');
      try {
        await platform.sendMessage(
          token,
          target,
          {
            plain: `This chat is not allowed to use this bot. Its id is ${queued.threadId}: add it to ${channel.settings.variables.allowedChats} to allow it.`,
          },
          { once: true },
        );
      } catch (error) {
        log.warn({ err: error }, 'could not tell a chat that is not allowed so; given up');
      }
      return;
    }
    // A notice's task whose chat was allowed since it was queued: it holds no question.
    if (task.notice === 'not-allowed') return log.info({}, 'chat allowed since it was told it is not; nothing to answer');
    // Acknowledged at once, an album too: its answer waits for its other messages, and the user
    // must see meanwhile that it arrived. Its acknowledgement goes on the message that queued the
    // answer (the first to arrive), so once per album. The wait runs alongside it (a rate limit's
    // retries do not lengthen it); typing starts, as for any message, once it was sent or given up.
    const acknowledged = platform.acknowledge(token, target, queued.metadata.messageId).catch((error: unknown) => {
      log.warn({ err: error }, 'could not acknowledge the message');
    });
    // An album's messages are of one chat (and topic): the whole album is answered where its first one was.
    const message = await this.#wholeAlbum(queued);
    await acknowledged;
    const typing = this.#keepTyping(platform, token, target, log);
    try {
      const { text, remembered, images, unreadable, transcripts, voiceProblems } = await this.#content(platform, token, message, log);
      let reply: string;
      // The jobs this answer's create_job calls created: named in the reply should the answer fail after them.
      const jobs = new Map<string, AnswerJob>();
      if (voiceProblems.length > 0 && message.text.trim() === '' && message.attachments.every(isSpeech) && transcripts.length === 0) {
        // Nothing but recordings, none of which could be heard: nothing for the model to answer.
        reply = [...new Set(voiceProblems)].join('\n');
      } else {
        try {
          reply = await this.agent.execute({
            threadId: conversationOf(channel, message),
            jobThreadId: jobThreadOf(channel, message),
            text,
            remembered,
            images,
            transcripts,
            metadata: { userId: platform.id, chatTitle: platform.title },
            // Looked up only for a command addressed to a bot by name (ChatAgent).
            ...(platform.botName !== undefined && { botName: () => platform.botName!(token) }),
            ...(this.headroom && { whenRoom: () => this.headroom!.wait() }),
            // The task's id: a later attempt of the task gets the jobs this one created (ChatAgent).
            ...(running !== undefined && { answerKey: `task:${running.id}`, retried: running.attempt > 1 }),
            jobCreated: (job) => jobs.set(job.jobId, job),
          });
          // A file's name is the sender's text: literal, so that no link of theirs shows in the gateway's own line.
          if (unreadable.length > 0) reply = `(I could not read ${unreadable.map(markdownLiteral).join(', ')}.)\n\n${reply}`;
          if (voiceProblems.length > 0) reply = `(${[...new Set(voiceProblems)].join(' ')})\n\n${reply}`;
        } catch (error) {
          log.error({ err: error, reason: aiFailureReason(error), jobsCreated: jobs.size }, 'AI call failed');
          // A job created before the failure runs: the user is told which, and how to follow it.
          reply = apologyWithJobs([...jobs.values()]);
        }
      }
      const parts = platform.formatReply(reply);
      // From here on the agent has run (its tools too) and the exchange is remembered: a
      // failure must not make the task run again, so a send the channel could not make is given up.
      // The reply is recorded as sent before its first part goes out: an attempt of the task run
      // after that (or one still running, taken back by the queue) sends nothing. At most once: a
      // kill while the parts go out loses the rest rather than sending another answer.
      if (sentKey !== undefined && !(await this.#firstReply(sentKey, log))) {
        return log.warn({ taskId: running!.id }, 'the reply of this chat task was sent by an earlier attempt; this one is not sent');
      }
      // The indicator stays up while the parts go out (a rate limit's wait included) and stops
      // before the last one, once a refresh under way has been answered: one the platform took
      // after the reply would show "typing…" under it (SPEC 4.4: send, then stop typing).
      for (const [index, part] of parts.entries()) {
        if (index === parts.length - 1) await typing.stop();
        if (!(await this.#deliver(platform, token, target, part, log))) return;
      }
      log.info({ parts: parts.length }, 'chat reply sent');
    } finally {
      void typing.stop();
    }
  }

  /** Whether this is an attempt after the first of a task stored longer ago than its jobs' keys are surely kept. */
  #tooLate(task: ChatMessageTask, running: Pick<RunningTask, 'attempt'> | undefined): boolean {
    if (this.lateRuns === undefined || running === undefined || running.attempt <= 1 || task.queuedAt === undefined) return false;
    const queuedAt = Date.parse(task.queuedAt);
    if (Number.isNaN(queuedAt)) return false;
    return this.lateRuns.clock.now().getTime() - queuedAt > this.lateRuns.keysKeptMs - LATE_RUN_MARGIN_MS;
  }

  /** Records the reply as sent; false when an earlier attempt did. A log that fails is no reason not to reply (true). */
  async #firstReply(key: string, log: Logger): Promise<boolean> {
    try {
      return await this.replies!.recordFirst(key, 'chat-reply');
    } catch (error) {
      log.warn({ err: error }, 'could not record the reply as sent; sent anyway');
      return true;
    }
  }

  /** Sends one part (the channel tries transient failures again); false when it could not be delivered. */
  async #deliver(platform: MessagingChannel, token: string, target: ReplyTarget, part: OutgoingMessage, log: Logger): Promise<boolean> {
    try {
      await platform.sendMessage(token, target, part);
      return true;
    } catch (error) {
      log.error({ err: error }, 'could not deliver the reply; given up');
      return false;
    }
  }

  /**
   * The message to answer: the queued one, or for a message of an album the whole album — read
   * once no message of it arrived for `settleMs` (at most MAX_ALBUM_WAIT_MS after this started),
   * every message stored for it by then, its caption wherever it is. A message of the album
   * stored later is not answered (its answer is this one).
   */
  async #wholeAlbum(message: ChannelMessage): Promise<ChannelMessage> {
    const key = albumKey(message.metadata.userId, message);
    if (key === undefined || this.albums === undefined) return message;
    const { store, clock, settleMs } = this.albums;
    const giveUpAt = clock.now().getTime() + MAX_ALBUM_WAIT_MS;
    for (;;) {
      const stored = await store.read(key);
      const now = clock.now().getTime();
      const due = Math.min((stored.lastArrivedAt?.getTime() ?? now) + settleMs, giveUpAt);
      if (now >= due) {
        const album = albumMessage([message, ...stored.items]);
        this.logger.debug({ channel: message.metadata.userId, chatId: message.threadId, album: key, items: stored.items.length }, 'album gathered');
        return album;
      }
      await new Promise<void>((resume) => this.timer.after(due - now, resume));
    }
  }

  /**
   * Sends the typing indicator now and every `typingRefreshMs` until stopped; `stop` resolves once
   * a refresh under way was answered. Each indicator is one attempt (a lost one is made good by
   * the next), and the next is sent only once the previous was answered: a refresh never joins
   * one still under way. After a rate limit (429) the next waits as long as the platform asked
   * (`retryAfterMs`), so that nothing is asked of the platform before then.
   */
  #keepTyping(platform: MessagingChannel, token: string, target: ReplyTarget, log: Logger): { stop(): Promise<void> } {
    const every = platform.typingRefreshMs;
    if (every === undefined) return { stop: async () => undefined };
    let stopped = false;
    let cancel = (): void => undefined;
    let underway: Promise<void> = Promise.resolve();
    const refresh = (): void => {
      if (stopped) return;
      // The next indicator is due when its pace has passed and this one was answered.
      let paced = false;
      let answered = false;
      const next = (): void => {
        if (paced && answered) refresh();
      };
      const pace = (ms: number): void => {
        cancel();
        paced = false;
        cancel = this.timer.after(ms, () => {
          paced = true;
          next();
        });
      };
      pace(every);
      underway = platform.sendTyping(token, target, { once: true }).then(
        () => {
          answered = true;
          next();
        },
        (error: unknown) => {
          log.debug({ err: error }, 'typing indicator failed');
          const retryAfterMs = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
          // Rate limited: nothing more is asked of the platform before the wait it asked for is over.
          if (typeof retryAfterMs === 'number' && retryAfterMs > 0 && !stopped) pace(Math.max(every, retryAfterMs));
          answered = true;
          next();
        },
      );
    };
    refresh();
    return {
      stop: () => {
        if (stopped) return Promise.resolve();
        stopped = true;
        cancel();
        // The refresh under way is waited for a moment only: a slow one (it may take up to the
        // call's time limit) must not hold the reply back.
        return new Promise<void>((settled) => {
          const give = this.timer.after(TYPING_SETTLE_MS, settled);
          void underway.then(() => {
            give();
            settled();
          });
        });
      },
    };
  }

  /**
   * The text for the AI: the message, readable attachments inlined, the others described; and
   * what the conversation remembers of it: the same with each text file's content replaced by a
   * note naming the file and its size (the content is sent with this message only).
   */
  async #content(
    platform: MessagingChannel,
    token: string,
    message: ChannelMessage,
    log: Logger,
  ): Promise<{ text: string; remembered: string; images: AiImage[]; unreadable: string[]; transcripts: string[]; voiceProblems: string[] }> {
    const images: AiImage[] = [];
    /** What the model reads of each attachment, and what the conversation keeps of it. */
    const notes: Array<{ sent: string; kept: string }> = [];
    const note = (sent: string, kept = sent): void => void notes.push({ sent, kept });
    const unreadable: string[] = [];
    const transcripts: string[] = [];
    const voiceProblems: string[] = [];
    // What is left of each total for this answer (see MAX_IMAGE_BYTES_PER_ANSWER).
    let imageRoom = MAX_IMAGE_BYTES_PER_ANSWER;
    let textRoom = MAX_TEXT_BYTES_PER_ANSWER;
    for (const attachment of message.attachments) {
      const label = describe(attachment);
      if (isSpeech(attachment)) {
        const heard = await transcribeSpeech(this.voice, platform, token, attachment, log);
        if (heard.transcript !== undefined) transcripts.push(heard.transcript);
        else {
          voiceProblems.push(heard.problem);
          note(`[The user sent ${label}, which could not be transcribed.]`);
        }
        continue;
      }
      try {
        const imageType = modelImageType(attachment);
        if (imageType !== undefined) {
          const limit = Math.min(MAX_IMAGE_BYTES, imageRoom);
          if (limit <= 0 || (attachment.size ?? 0) > limit) throw new Error(limit < MAX_IMAGE_BYTES ? "past the answer's total for images" : 'too large');
          // The limit holds also when the platform did not say the size: the download stops past it.
          const file = await platform.download(token, attachment.fileId, limit);
          imageRoom -= file.data.byteLength;
          images.push({ mediaType: imageType, data: file.data });
          continue;
        }
        if (attachment.kind === 'document' && (TEXT_TYPES.test(attachment.mimeType ?? '') || TEXT_NAMES.test(attachment.fileName ?? ''))) {
          const limit = Math.min(MAX_TEXT_FILE_BYTES, textRoom);
          if (limit <= 0 || (attachment.size ?? 0) > limit)
            throw new Error(limit < MAX_TEXT_FILE_BYTES ? "past the answer's total for text files" : 'too large');
          const file = await platform.download(token, attachment.fileId, limit);
          textRoom -= file.data.byteLength;
          const fileName = attachment.fileName ?? file.path;
          note(
            `Attached file ${fileName}:\n${new TextDecoder().decode(file.data)}`,
            `[The user attached the text file ${fileName} (${sizeOf(file.data.byteLength)}); its content was read with this message and is not kept.]`,
          );
          continue;
        }
      } catch (error) {
        log.warn({ err: error, kind: attachment.kind }, 'could not read an attachment');
      }
      note(`[The user attached ${label}, which you cannot read.]`);
      unreadable.push(label);
    }
    // A message that is only a recording is its transcript: no "(no text)" placeholder beside it.
    const joined = (parts: string[]): string =>
      [message.text, ...parts].filter((part) => part !== '').join('\n\n') || (transcripts.length > 0 ? '' : '(no text)');
    return {
      text: joined(notes.map((n) => n.sent)),
      remembered: joined(notes.map((n) => n.kept)),
      images,
      unreadable,
      transcripts,
      voiceProblems,
    };
  }
}

/** A file's size for a person: `812 bytes`, `500 KB`, `1.5 MB`. */
const sizeOf = (bytes: number): string => {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
};

const describe = (attachment: Attachment): string => {
  const name = attachment.fileName ? ` "${attachment.fileName}"` : '';
  switch (attachment.kind) {
    case 'voice':
      return 'a voice message';
    case 'video_note':
      return 'a video message';
    case 'document':
      return `a file${name}`;
    default:
      return `a${/^[aeiou]/.test(attachment.kind) ? 'n' : ''} ${attachment.kind}${name}`;
  }
};

/**
 * Where a job created from a message announces itself when it finishes: the chat and the thread
 * (forum topic) the message was in, also where threads share the chat's conversation.
 */
export const jobThreadOf = (channel: ChatChannel, message: ChannelMessage): string =>
  chatThreadKey({
    channel: channel.platform.id,
    chatId: message.threadId,
    ...(message.metadata.topicId !== undefined && { topicId: message.metadata.topicId }),
  });

/** The agent's conversation of a message: its chat, or its thread where threads are conversations of their own. */
export const conversationOf = (channel: ChatChannel, message: ChannelMessage): string =>
  chatThreadKey({
    channel: channel.platform.id,
    chatId: message.threadId,
    ...(channel.platform.threadsAreConversations && message.metadata.topicId !== undefined && { topicId: message.metadata.topicId }),
  });
