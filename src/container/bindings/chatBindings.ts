import { readFile } from 'node:fs/promises';
import type { Container } from 'inversify';
import { TelegramChannel } from '../../adapters/messaging/TelegramChannel.js';
import type { Database } from '../../adapters/persistence/Database.js';
import { MikroOrmBotTokenStore } from '../../adapters/persistence/MikroOrmBotTokenStore.js';
import { CachingConversationStore } from '../../adapters/persistence/CachingConversationStore.js';
import { MikroOrmConversationStore } from '../../adapters/persistence/MikroOrmConversationStore.js';
import { ChatAgent } from '../../application/ChatAgent.js';
import { ReceiveMessagingUpdate } from '../../application/ReceiveMessagingUpdate.js';
import { RegisterMessagingWebhook } from '../../application/RegisterMessagingWebhook.js';
import { ReplyToChatMessage } from '../../application/ReplyToChatMessage.js';
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

/** The chat channel (Telegram) and the chat agent every channel shares. */
export const bindChat = (c: Container, config: AppConfig): void => {
  c.bind(TOKENS.MessagingChannel).toConstantValue(
    new TelegramChannel({ apiUrl: config.messaging.apiUrl, attempts: 4, backoffMs: 1000, maxRetryAfterMs: 60_000, timeoutMs: 30_000 }),
  );
  c.bind(TOKENS.BotTokenStore).toResolvedValue((db: Database) => new MikroOrmBotTokenStore(db, config.messaging.botToken), [TOKENS.Database]);
  c.bind(TOKENS.ConversationStore).toResolvedValue(
    // The embedded database has one writer (this process): recent turns can be served from memory.
    (db: Database) =>
      db.engine === 'pglite' ? new CachingConversationStore(new MikroOrmConversationStore(db), config.chat.historyTurns) : new MikroOrmConversationStore(db),
    [TOKENS.Database],
  );
  const systemPrompt = cachedFor(SYSTEM_PROMPT_REREAD_MS, async (): Promise<string> =>
    (await readFile(config.chat.systemPromptFile, 'utf8').catch(() => '')).trim() || 'You are a helpful assistant.');
  c.bind(TOKENS.ChatAgent).toResolvedValue(
    (ai, conversations, createJob, jobStatus, ids) =>
      new ChatAgent(ai, conversations, createJob, jobStatus, ids, { historyTurns: config.chat.historyTurns, maxSteps: config.chat.maxSteps, systemPrompt }),
    [TOKENS.AiClient, TOKENS.ConversationStore, TOKENS.CreateJob, TOKENS.GetJobStatus, TOKENS.IdGenerator],
  );
  c.bind(TOKENS.RegisterMessagingWebhook).toResolvedValue(
    (channel, tokens, crypto, logger) => new RegisterMessagingWebhook(channel, tokens, config.messaging.webhookSecret, crypto, logger),
    [TOKENS.MessagingChannel, TOKENS.BotTokenStore, TOKENS.ApiKeyCrypto, TOKENS.Logger],
  );
  c.bind(TOKENS.ReceiveMessagingUpdate).toResolvedValue(
    (channel, crypto, tokens, deliveries, queue, fire, logger) =>
      new ReceiveMessagingUpdate(channel, config.messaging.webhookSecret, crypto, tokens, deliveries, queue, fire, logger),
    [TOKENS.MessagingChannel, TOKENS.ApiKeyCrypto, TOKENS.BotTokenStore, TOKENS.DeliveryLog, TOKENS.TaskQueue, TOKENS.FireTriggers, TOKENS.Logger],
  );
  c.bind(TOKENS.ReplyToChatMessage).toResolvedValue(
    (channel, tokens, agent, logger) => new ReplyToChatMessage(channel, tokens, agent, { allowedChatIds: config.messaging.allowedChatIds }, logger),
    [TOKENS.MessagingChannel, TOKENS.BotTokenStore, TOKENS.ChatAgent, TOKENS.Logger],
  );
};
