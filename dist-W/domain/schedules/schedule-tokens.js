/**
 * A schedule has no request: its templates know `{{now}}` (the occurrence, ISO 8601 UTC) and
 * `{{schedule.name}}`. They are rewritten at validation to the request-token forms
 * `{{body.now}}` and `{{body.schedule.name}}`, and the actions run against `scheduleSnapshot`,
 * so the one renderer (shell escaping through the environment, prompt framing) serves both.
 */
const SCHEDULE_TOKEN = /\{\{\s*(now|schedule\.name)\s*\}\}/g;
const ANY_TOKEN = /\{\{[^{}]*\}\}/g;
/** Tokens a schedule's template may not hold: every token but `{{now}}` and `{{schedule.name}}`. */
export const findNonScheduleTokens = (template) => (template.match(ANY_TOKEN) ?? []).filter((token) => token.replace(SCHEDULE_TOKEN, '') !== '');
/** The template with the schedule tokens in their request-token form (see above). */
export const toRequestTokens = (template) => template.replace(SCHEDULE_TOKEN, (_token, name) => (name === 'now' ? '{{body.now}}' : '{{body.schedule.name}}'));
/** Undoes `toRequestTokens` in a validation message, so problems quote the template as written. */
export const fromRequestTokens = (text) => text.replaceAll('{{body.now}}', '{{now}}').replaceAll('{{body.schedule.name}}', '{{schedule.name}}');
/** What a schedule's actions render against: its name and the occurrence. A webhook's `data` is this body. */
export const scheduleSnapshot = (name, occurrence) => ({
    body: { now: occurrence.toISOString(), schedule: { name } },
    query: {},
    headers: {},
});
//# sourceMappingURL=schedule-tokens.js.map