import type { Trigger } from './trigger.js';

/**
 * Warnings (not problems: the file is valid) about enabled triggers on a chat endpoint that fire
 * for every chat. The platform's secret proves an update comes from the platform, not who wrote
 * it: anyone who can message the bot fires such a trigger, whatever the chat allowlist (which
 * decides who reaches the AI only). A trigger meant for the operator's own chats says so with a
 * `when` on the chat's id (docs/triggers.md, "When triggers fire").
 *
 * `chatIdFields` gives, for each chat endpoint's watch path (`/messaging/<channel>/webhook`, and
 * the alias `/messaging/webhook`), the request fields that name the chat an update comes from on
 * that channel, the one to suggest first (each channel declares its own: the domain knows none).
 * A watch path it does not list is no chat endpoint.
 */
export const chatTriggerWarnings = (triggers: readonly Trigger[], chatIdFields: ReadonlyMap<string, readonly string[]>): string[] =>
  triggers.flatMap((trigger) => {
    const fields = chatIdFields.get(trigger.watchPath);
    if (!trigger.enabled || fields === undefined || fields.length === 0) return [];
    if ((trigger.when ?? []).some((test) => fields.includes(test.path))) return [];
    return [
      `trigger "${trigger.name}" watches the chat endpoint ${trigger.watchPath} with no "when" on the chat's id: anyone who can message the bot fires it, whatever the chat allowlist (add e.g. "when": {"${fields[0]}": {"in": [<your chat ids>]}})`,
    ];
  });
