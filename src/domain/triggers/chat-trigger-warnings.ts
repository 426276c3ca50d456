import type { Trigger } from './trigger.js';

/** A chat platform's webhook endpoint, as a trigger watches it: `/messaging/webhook` or `/messaging/<channel>/webhook`. */
const CHAT_WEBHOOK = /^\/messaging(?:\/[^/]+)?\/webhook$/;

/**
 * Request fields that name the chat an update comes from: Telegram's `…chat.id` (of a message,
 * an edit, a channel post, a callback's message), Slack's `event.channel`.
 */
const namesTheChat = (path: string): boolean => /(^|\.)chat\.id$/.test(path) || path === 'body.event.channel';

/**
 * Warnings (not problems: the file is valid) about enabled triggers on a chat endpoint that fire
 * for every chat. The platform's secret proves an update comes from the platform, not who wrote
 * it: anyone who can message the bot fires such a trigger, whatever the chat allowlist (which
 * decides who reaches the AI only). A trigger meant for the operator's own chats says so with a
 * `when` on the chat's id (docs/triggers.md, "When triggers fire").
 */
export const chatTriggerWarnings = (triggers: readonly Trigger[]): string[] =>
  triggers
    .filter((trigger) => trigger.enabled && CHAT_WEBHOOK.test(trigger.watchPath) && !(trigger.when ?? []).some((test) => namesTheChat(test.path)))
    .map(
      (trigger) =>
        `trigger "${trigger.name}" watches the chat endpoint ${trigger.watchPath} with no "when" on the chat's id: anyone who can message the bot fires it, whatever the chat allowlist (add e.g. "when": {"body.message.chat.id": {"in": [<your chat ids>]}})`,
    );
