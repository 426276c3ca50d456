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
    credentialHeaders: ['x-telegram-bot-api-secret-token'],
};
//# sourceMappingURL=telegram.js.map