import { z } from 'zod';
import { TELEGRAM } from '../../adapters/messaging/telegram/telegram.js';
import type { ChatChannelSettings } from '../../application/messaging/messaging-channels.js';
import { list, oneOf, optionalText, url } from '../config/fields.js';
import { withFormerNames } from '../config/former-names.js';
import type { ChannelBinding } from './channel-binding.js';

export interface TelegramConfig extends ChatChannelSettings {
  /** Default bot token (a registration overrides it). Never logged. */
  readonly botToken: string | undefined;
  /** `https://api.telegram.org`, or a local Bot API server, or a fake in tests. */
  readonly apiUrl: string;
}

/** The names the Telegram variables had when Telegram was the only channel: still read. */
const FORMER_NAMES = {
  TELEGRAM_BOT_TOKEN: 'MESSAGING_BOT_TOKEN',
  TELEGRAM_WEBHOOK_SECRET: 'MESSAGING_WEBHOOK_SECRET',
  TELEGRAM_API_URL: 'MESSAGING_API_URL',
  TELEGRAM_ALLOWED_CHAT_IDS: 'MESSAGING_ALLOWED_CHAT_IDS',
  TELEGRAM_MODE: 'MESSAGING_MODE',
};

/**
 * What is wrong with a chat id as written in a variable, or undefined. Telegram writes a chat id
 * as a whole number (negative for groups and channels) without a plus sign or leading zeros, and
 * chats are compared by that text: `0123` or `+123` would never match chat 123, so they are
 * refused, naming the form to write.
 */
const chatIdProblem = (id: string): string | undefined => {
  const written = /^([+-]?)0*(\d+)$/.exec(id);
  if (written === null) return `"${id}" is not a chat id (a whole number, negative for groups)`;
  const [, sign, digits] = written;
  const canonical = `${sign === '-' ? '-' : ''}${digits}`;
  if (digits === '0') return `"${id}" is not a chat id (a whole number, negative for groups)`;
  return canonical === id ? undefined : `"${id}" is not a chat id as Telegram writes it (no plus sign, no leading zeros): write ${canonical}`;
};

const schema = withFormerNames(FORMER_NAMES, (nameOf) =>
  z
    .object({
      TELEGRAM_BOT_TOKEN: optionalText(),
      TELEGRAM_WEBHOOK_SECRET: optionalText().superRefine((value, ctx) => {
        if (value !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(value)) {
          ctx.addIssue({ code: 'custom', message: "must be 1 to 256 characters of A-Z, a-z, 0-9, _ and - (the platform's rule)" });
        }
      }),
      TELEGRAM_API_URL: url('https://api.telegram.org'),
      TELEGRAM_MODE: oneOf(['webhook', 'polling'] as const, 'webhook'),
      TELEGRAM_ALLOWED_CHAT_IDS: list(chatIdProblem),
      TELEGRAM_APPROVAL_CHAT_ID: optionalText().superRefine((value, ctx) => {
        const problem = value === undefined ? undefined : chatIdProblem(value);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      }),
    })
    .superRefine((env, ctx) => {
      // Polling needs no webhook, so no secret to tell the platform's requests from others'.
      if (env.TELEGRAM_MODE === 'webhook' && env.TELEGRAM_BOT_TOKEN !== undefined && env.TELEGRAM_WEBHOOK_SECRET === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['TELEGRAM_WEBHOOK_SECRET'],
          message: `required when ${nameOf('TELEGRAM_BOT_TOKEN')} is set (the webhook must be able to tell the platform from anyone else): set it, e.g. to the output of openssl rand -hex 32, or set ${nameOf('TELEGRAM_MODE')}=polling where the service has no public HTTPS address`,
        });
      }
    })
    .transform(
      (env): TelegramConfig => ({
        botToken: env.TELEGRAM_BOT_TOKEN,
        webhookSecret: env.TELEGRAM_WEBHOOK_SECRET,
        apiUrl: env.TELEGRAM_API_URL,
        allowedChatIds: new Set(env.TELEGRAM_ALLOWED_CHAT_IDS),
        mode: env.TELEGRAM_MODE,
        ...(env.TELEGRAM_APPROVAL_CHAT_ID === undefined ? {} : { approvalChatId: env.TELEGRAM_APPROVAL_CHAT_ID }),
        variables: {
          approvalChat: 'TELEGRAM_APPROVAL_CHAT_ID',
          mode: nameOf('TELEGRAM_MODE'),
          botToken: nameOf('TELEGRAM_BOT_TOKEN'),
          webhookSecret: nameOf('TELEGRAM_WEBHOOK_SECRET'),
          allowedChats: nameOf('TELEGRAM_ALLOWED_CHAT_IDS'),
        },
      }),
    ),
);

/**
 * Telegram (the Bot API, by webhook or, with TELEGRAM_MODE=polling, by long polling). Its registered token and webhook secret stay under the
 * `settings` keys they had before channels had names (`messaging.bot_token`,
 * `messaging.webhook_secret`), so an upgrade keeps them.
 */
export const telegramBinding: ChannelBinding<'telegram', TelegramConfig> = {
  id: TELEGRAM.id,
  registers: TELEGRAM.registers,
  credentialHeaders: TELEGRAM.credentialHeaders,
  chatIdFields: TELEGRAM.chatIdFields,
  schema,
  async create(config, { database }) {
    const [{ TelegramChannel }, { MikroOrmBotTokenStore }] = await Promise.all([
      import('../../adapters/messaging/telegram/telegram-channel.js'),
      import('../../adapters/persistence/mikro-orm-bot-token-store.js'),
    ]);
    return {
      platform: new TelegramChannel({ apiUrl: config.apiUrl, attempts: 4, backoffMs: 1000, maxRetryAfterMs: 60_000, timeoutMs: 30_000 }),
      credentials: new MikroOrmBotTokenStore(database, config.botToken),
      settings: config,
    };
  },
};
