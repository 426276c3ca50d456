import type { Container } from 'inversify';
import { AI_PROVIDER_NAMES } from '../../adapters/ai/ai-providers.js';
import { readBoundedFile } from '../../adapters/shared/bounded-file.js';
import type { Database } from '../../adapters/persistence/database.js';
import { CachingConversationStore } from '../../adapters/persistence/caching-conversation-store.js';
import { MikroOrmAlbumStore } from '../../adapters/persistence/mikro-orm-album-store.js';
import { MikroOrmConversationStore } from '../../adapters/persistence/mikro-orm-conversation-store.js';
import { DecideApprovalInChat } from '../../application/approvals/approvals-in-chat.js';
import type { DecideApproval } from '../../application/approvals/decide-approval.js';
import { ChatAgent } from '../../application/messaging/chat-agent.js';
import { MessagingChannels } from '../../application/messaging/messaging-channels.js';
import { ReceiveMessagingUpdate } from '../../application/messaging/receive-messaging-update.js';
import { RegisterMessagingWebhook } from '../../application/messaging/register-messaging-webhook.js';
import { ReplyToChatMessage } from '../../application/messaging/reply-to-chat-message.js';
import { CHANNEL_BINDINGS } from '../channels/index.js';
import type { Headroom } from '../../ports/headroom.js';
import type { Logger } from '../../ports/logger.js';
import { NodeTimer } from '../../adapters/system/node-timer.js';
import type { ApiKeyCrypto } from '../../ports/api-key-crypto.js';
import type { Clock } from '../../ports/clock.js';
import type { DeliveryLog } from '../../ports/delivery-log.js';
import type { SecretStore } from '../../ports/secret-store.js';
import { voiceTranscription } from './voice-transcription.js';
import type { ChannelBinding } from '../channels/channel-binding.js';
import type { AppConfig } from '../config.js';
import { TOKENS } from '../tokens.js';

/** An edited system prompt file is used from the next message after at most this long. */
const SYSTEM_PROMPT_REREAD_MS = 5_000;

/** `read`, called again only once its last answer is older than `ms` (a file read per message is measurable under load). */
const cachedFor = <T>(ms: number, read: () => Promise<T>): (() => Promise<T>) => {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    const now = Date.now();
    if (last === undefined || now - last.at >= ms) last = { at: now, value: read() };
    return last.value;
  };
};

const DEFAULT_SYSTEM_PROMPT = 'You are a helpful assistant.';

/** The largest system prompt file read: far more than a model's context takes. */
const MAX_SYSTEM_PROMPT_BYTES = 1024 * 1024;

/** An error with a code, as the file system's are (the warning names it). */
const codedError = (code: string, message: string): NodeJS.ErrnoException => Object.assign(new Error(message), { code });

/**
 * The prompt file's text, read bounded (readBoundedFile): a FIFO was read for good (every chat
 * answer waited on it, and each look took one more of libuv's four threads), a device such as
 * /dev/zero never ends. A FIFO, a socket or a directory throws ENOTREG, a file past
 * MAX_SYSTEM_PROMPT_BYTES EFBIG.
 */
const readPromptFile = async (path: string): Promise<string> => {
  const read = await readBoundedFile(path, MAX_SYSTEM_PROMPT_BYTES);
  if (read.kind === 'too-large') throw codedError('EFBIG', `${path} is more than ${MAX_SYSTEM_PROMPT_BYTES} bytes`);
  if (read.kind !== 'bytes') throw codedError('ENOTREG', `${path} is not a regular file`);
  return read.bytes.toString('utf8');
};

/**
 * The chat's system prompt from CHAT_SYSTEM_PROMPT_FILE, read again every
 * SYSTEM_PROMPT_REREAD_MS so that an edit applies without a restart. An empty file, or the
 * default file absent, gives the default prompt. A file that cannot be read (removed, its
 * rights changed) keeps the prompt read last and says so once in the log, until it can be read.
 */
export const systemPromptOf = (chat: AppConfig['chat'], logger: Logger, rereadMs = SYSTEM_PROMPT_REREAD_MS): (() => Promise<string>) => {
  let kept = DEFAULT_SYSTEM_PROMPT;
  let failing = false;
  return cachedFor(rereadMs, async () => {
    try {
      kept = (await readPromptFile(chat.systemPromptFile)).trim() || DEFAULT_SYSTEM_PROMPT;
      failing = false;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (!failing && (chat.systemPromptFileGiven || code !== 'ENOENT')) {
        logger.warn({ file: chat.systemPromptFile, code }, 'chat system prompt file cannot be read (CHAT_SYSTEM_PROMPT_FILE); the prompt read last is kept');
      }
      failing = true;
    }
    return kept;
  });
};

/** The messaging channels (the registry of container/channels/) and the chat agent every channel shares. */
export const bindChat = (c: Container, config: AppConfig): void => {
  c.bind(TOKENS.MessagingChannels).toResolvedValue(
    async (database: Database) =>
      new MessagingChannels(
        await Promise.all(CHANNEL_BINDINGS.map((binding) => (binding as ChannelBinding).create(config.channels[binding.id], { database }))),
      ),
    [TOKENS.Database],
  );
  c.bind(TOKENS.ConversationStore).toResolvedValue(
    // The embedded database has one writer (this process): recent turns can be served from memory.
    (db: Database) =>
      db.engine === 'pglite' ? new CachingConversationStore(new MikroOrmConversationStore(db), config.chat.historyTurns) : new MikroOrmConversationStore(db),
    [TOKENS.Database],
  );
  c.bind(TOKENS.ChatAgent).toResolvedValue(
    (ai, conversations, createJob, jobStatus, ids, logger: Logger, createJobOnce) =>
      new ChatAgent(
        ai,
        conversations,
        createJob,
        jobStatus,
        ids,
        {
          historyTurns: config.chat.historyTurns,
          maxSteps: config.chat.maxSteps,
          systemPrompt: systemPromptOf(config.chat, logger),
          llmProviders: AI_PROVIDER_NAMES,
        },
        createJobOnce,
        logger,
      ),
    [TOKENS.AiClient, TOKENS.ConversationStore, TOKENS.CreateJob, TOKENS.GetJobStatus, TOKENS.IdGenerator, TOKENS.Logger, TOKENS.CreateJobOnce],
  );
  c.bind(TOKENS.RegisterMessagingWebhook).toResolvedValue(
    (channels: MessagingChannels, crypto: ApiKeyCrypto, logger: Logger) => new RegisterMessagingWebhook(channels, crypto, logger, config.publicUrl),
    [TOKENS.MessagingChannels, TOKENS.ApiKeyCrypto, TOKENS.Logger],
  );
  c.bind(TOKENS.ReceiveMessagingUpdate).toResolvedValue(
    (channels, deliveries, queue, fire, clock, logger: Logger, decide: DecideApproval, db: Database) => {
      const inChat = new DecideApprovalInChat(decide, logger);
      return new ReceiveMessagingUpdate(
        channels,
        deliveries,
        queue,
        fire,
        clock,
        logger,
        (channel, choice) => inChat.execute(channel, choice),
        new MikroOrmAlbumStore(db),
      );
    },
    [TOKENS.MessagingChannels, TOKENS.DeliveryLog, TOKENS.TaskQueue, TOKENS.FireTriggers, TOKENS.Clock, TOKENS.Logger, TOKENS.DecideApproval, TOKENS.Database],
  );
  c.bind(TOKENS.ReplyToChatMessage).toResolvedValue(
    (
      channels: MessagingChannels,
      agent: ChatAgent,
      logger: Logger,
      secrets: SecretStore,
      headroom: Headroom,
      db: Database,
      clock: Clock,
      deliveries: DeliveryLog,
    ) =>
      new ReplyToChatMessage(
        channels,
        agent,
        logger,
        voiceTranscription(config, secrets),
        headroom,
        new NodeTimer(),
        { store: new MikroOrmAlbumStore(db), clock, settleMs: config.chat.albumSettleMs },
        deliveries,
        // A task run again later than its answer is surely remembered is not answered (docs/chat.md).
        { clock, keysKeptMs: config.retention.chatAnswerRememberedDays * 86_400_000 },
      ),
    [TOKENS.MessagingChannels, TOKENS.ChatAgent, TOKENS.Logger, TOKENS.SecretStore, TOKENS.Headroom, TOKENS.Database, TOKENS.Clock, TOKENS.DeliveryLog],
  );
};
