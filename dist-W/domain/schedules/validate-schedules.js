import { validateAction } from '../triggers/validate-triggers.js';
import { findNonScheduleTokens, fromRequestTokens, toRequestTokens } from './schedule-tokens.js';
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const describe = (value) => (Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`);
const SCHEDULE_FIELDS = ['name', 'schedule', 'timezone', 'enabled', 'catch_up', 'actions'];
/** Template fields of each action type: where `{{now}}` and `{{schedule.name}}` may stand. */
const TEMPLATE_FIELDS = { agent: 'job', command: 'command' };
/** The action with its schedule tokens rewritten (see schedule-tokens.ts), or a list of refused tokens. */
const rewriteTokens = (action) => {
    const field = TEMPLATE_FIELDS[String(action.type)];
    const template = field === undefined ? undefined : action[field];
    if (typeof template !== 'string')
        return { action, refused: [] };
    const refused = findNonScheduleTokens(template).map((token) => [field, token]);
    return { action: { ...action, [field]: toRequestTokens(template) }, refused };
};
/** Validates a parsed schedule file as a whole, reporting every problem at once. */
export const validateSchedules = (raw, file, catalog) => {
    if (!Array.isArray(raw))
        return { schedules: [], problems: [`${file}: must be a JSON array of schedules, found ${describe(raw)}`] };
    const problems = [];
    const schedules = [];
    const seen = new Map();
    const actionCatalog = { watchPaths: [], llmProviders: catalog.llmProviders };
    raw.forEach((entry, index) => {
        const name = isObject(entry) && typeof entry.name === 'string' && entry.name.trim() !== '' ? entry.name : undefined;
        const where = `${file}: schedule #${index}${name === undefined ? '' : ` "${name}"`}`;
        const problem = (field, message) => void problems.push(`${where}: ${field}: ${message}`);
        if (!isObject(entry)) {
            problems.push(`${where}: must be an object, found ${describe(entry)}`);
            return;
        }
        const before = problems.length;
        if (name === undefined)
            problem('name', 'required, a non-empty string');
        else if (seen.has(name))
            problem('name', `duplicate of schedule #${seen.get(name)}`);
        else
            seen.set(name, index);
        const timezone = entry.timezone;
        if (timezone !== undefined && (typeof timezone !== 'string' || timezone.trim() === ''))
            problem('timezone', 'an IANA time zone name, e.g. Europe/Berlin');
        const expression = entry.schedule;
        if (typeof expression !== 'string' || expression.trim() === '')
            problem('schedule', 'required, a cron expression of 5 fields (or 6, seconds first)');
        else {
            const fields = expression.trim().split(/\s+/).length;
            if (fields !== 5 && fields !== 6)
                problem('schedule', `"${expression}" has ${fields} fields; a cron expression has 5 (or 6, seconds first)`);
            else {
                const refused = catalog.cronProblem(expression, typeof timezone === 'string' ? timezone : undefined);
                if (refused !== undefined)
                    problem(refused.startsWith('timezone') ? 'timezone' : 'schedule', refused.replace(/^timezone: /, ''));
            }
        }
        if (typeof entry.enabled !== 'boolean')
            problem('enabled', 'required, true or false');
        if (entry.catch_up !== undefined && typeof entry.catch_up !== 'boolean')
            problem('catch_up', 'true or false (default true)');
        for (const field of Object.keys(entry))
            if (!SCHEDULE_FIELDS.includes(field))
                problem(field, 'unknown field');
        const actions = [];
        if (!Array.isArray(entry.actions) || entry.actions.length === 0)
            problem('actions', 'required, a non-empty array');
        else
            entry.actions.forEach((action, i) => {
                const report = (field, message) => problem(`actions[${i}]${field ? `.${field}` : ''}`, fromRequestTokens(message));
                if (!isObject(action)) {
                    validateAction(action, actionCatalog, report);
                    return;
                }
                // Nobody is asked at a schedule's time: an approval would hold every occurrence.
                if ('approval' in action)
                    report('approval', 'not available for schedule actions (approvals are for triggers)');
                const { approval: _approval, ...fields } = action;
                const rewritten = rewriteTokens(fields);
                for (const [field, token] of rewritten.refused) {
                    report(field, `unknown template token ${token}; a schedule's tokens are {{now}} and {{schedule.name}} (there is no request)`);
                }
                const parsed = validateAction(rewritten.action, actionCatalog, report);
                // No request, so no outside text: a prompt's values are the time and the name, spliced in as written.
                if (parsed && rewritten.refused.length === 0 && !('approval' in action))
                    actions.push(parsed.type === 'agent' ? { ...parsed, unsafeRaw: true } : parsed);
            });
        if (problems.length === before) {
            schedules.push({
                name: name,
                schedule: expression.trim(),
                ...(typeof timezone === 'string' ? { timezone } : {}),
                enabled: entry.enabled,
                catchUp: entry.catch_up !== false,
                actions,
            });
        }
    });
    return { schedules, problems };
};
//# sourceMappingURL=validate-schedules.js.map