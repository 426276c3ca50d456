/**
 * What the gateway knows of the Telegram channel before its adapter is loaded (routes,
 * trigger paths, the headers kept out of snapshots and logs). Imports nothing.
 */
export const TELEGRAM = {
  id: 'telegram',
  title: 'Telegram',
  /** `POST /api/messaging/telegram/register` calls setWebhook. */
  registers: true,
  /** The webhook secret Telegram sends with every update. */
  credentialHeaders: ['x-telegram-bot-api-secret-token'] as readonly string[],
  /**
   * The webhook's fields naming the chat an update comes from (the chat-endpoint trigger
   * warning's, the first suggested): a message's, an edit's, a channel post's (and its edit's),
   * the message of a button press (the updates the bot asks for, telegram-channel.ts).
   */
  chatIdFields: [
    'body.message.chat.id',
    'body.edited_message.chat.id',
    'body.channel_post.chat.id',
    'body.edited_channel_post.chat.id',
    'body.callback_query.message.chat.id',
  ] as readonly string[],
} as const;
