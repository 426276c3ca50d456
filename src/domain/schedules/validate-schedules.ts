import { shownInput } from '../errors/shown-input.js';
import type { TriggerAction } from '../triggers/trigger.js';
import { duplicateNameProblem, unprintableNameProblem, validateAction } from '../triggers/validate-triggers.js';
import type { Schedule } from './schedule.js';
import { didYouMean } from '../text/nearest-name.js';
import { findNonScheduleTokens, fromRequestTokens, toRequestTokens } from './schedule-tokens.js';
import { describeValue, requiredAs } from '../triggers/found-value.js';

/** What a schedule file is checked against, given by the composition root. */
export interface ScheduleCatalog {
  readonly llmProviders: readonly string[];
  /** Why a cron expression (in a time zone, when given) is refused; undefined when it is valid. */
  readonly cronProblem: (expression: string, timezone: string | undefined) => string | undefined;
}

export interface ScheduleValidation {
  /** The valid schedules; use them only when `problems` is empty. */
  readonly schedules: Schedule[];
  /** One line per problem: file, entry (index and name), field, what is wrong. */
  readonly problems: string[];
}

type Fields = Record<string, unknown>;
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

const SCHEDULE_FIELDS = ['name', 'schedule', 'timezone', 'enabled', 'catch_up', 'actions'];
/** Template fields of each action type: where `{{now}}` and `{{schedule.name}}` may stand. */
const TEMPLATE_FIELDS: Record<string, string> = { agent: 'job', command: 'command' };

/** The action with its schedule tokens rewritten (see schedule-tokens.ts), or a list of refused tokens. */
const rewriteTokens = (action: Fields): { action: Fields; refused: Array<[string, string]> } => {
  // The type as written, never converted: an object there ({"toString": 1}) would throw, and validateAction names it.
  const type = action.type;
  const field = typeof type === 'string' && Object.hasOwn(TEMPLATE_FIELDS, type) ? TEMPLATE_FIELDS[type] : undefined;
  if (field === undefined) return { action, refused: [] };
  const template = action[field];
  if (typeof template !== 'string') return { action, refused: [] };
  const refused = findNonScheduleTokens(template).map((token): [string, string] => [field, token]);
  return { action: { ...action, [field]: toRequestTokens(template) }, refused };
};

/** The most characters of a refused name, expression or field a problem repeats (a valid name is shorter). */
const SHOWN_LENGTH = 200;

const FIELD_NAMES = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'];
/**
 * cron-parser's names: in the month and weekday fields it reads every run of three letters as
 * one (`THU`, `mar`) before anything else, and refuses a run that is none (`march`, `thursday`).
 */
const NAME_RUN = /[a-z]{3}/gi;
const NAMED_FIELDS = ['month', 'day-of-week'];

/**
 * The first field using `H`, with why; undefined when there is none. The calendar (cron-parser)
 * reads `H` as a random value drawn at every parse, so each replica and each look would run the
 * schedule at another time, several times an hour. It does so wherever the H stands once the
 * names are read: alone (`H`, `H/5`, `H(0-5)`), in a list, a range or a step (`1,H`, `0-H`, `5/H`),
 * or beside a digit or letter (`HL`, `H#2`, `1H`, `THUH`, whose value then depends on the draw).
 * Its other extensions (`L`, `W`, `#`, `?`) are deterministic and were always accepted: they stay.
 */
const unsupportedCronSyntax = (fields: readonly string[]): string | undefined => {
  const names = fields.length === 6 ? ['second', ...FIELD_NAMES] : FIELD_NAMES;
  for (const [i, field] of fields.entries()) {
    const read = NAMED_FIELDS.includes(names[i]) ? field.replace(NAME_RUN, '') : field;
    if (!/h/i.test(read)) continue;
    return `${names[i]} field "${shownInput(field, SHOWN_LENGTH)}" uses H, which the cron library reads as a new random time at every look (replicas would run the schedule at different times, several times an hour); write the minute or hour you want`;
  }
  return undefined;
};

/** How many values each field has, and which (second to day-of-week). */
const FIELD_VALUES: Record<string, { readonly count: number; readonly values: string }> = {
  second: { count: 60, values: '0-59' },
  minute: { count: 60, values: '0-59' },
  hour: { count: 24, values: '0-23' },
  'day-of-month': { count: 31, values: '1-31' },
  month: { count: 12, values: '1-12' },
  'day-of-week': { count: 7, values: '0-6, Sunday also 7' },
};

/**
 * The first field with a step (after a `/`) that is not a whole number from 1 to the field's
 * count of values written in plain digits, with why; undefined when there is none. The cron
 * library converts a step as JavaScript converts a number and takes any size: a step past the
 * field's values (`0/90` in the minute field) ran once an hour, not every 90 minutes; a month or
 * weekday name as a step (`1/mar`, `1/mon`) was read as its number; a space after the slash
 * (splitting the field) was refused as "cannot repeat at every 0 time"; `1e1`, `1.5` or `0x10`
 * as "Invalid characters". A step as large as the count says what it does (`0/60`: minute 0).
 */
const stepProblem = (fields: readonly string[]): string | undefined => {
  const names = fields.length === 6 ? ['second', ...FIELD_NAMES] : FIELD_NAMES;
  for (const [i, field] of fields.entries()) {
    const { count, values } = FIELD_VALUES[names[i]];
    for (const item of field.split(','))
      for (const step of item.split('/').slice(1)) {
        if (/^[0-9]+$/.test(step) && Number(step) >= 1 && Number(step) <= count) continue;
        return `${names[i]} field "${shownInput(field, SHOWN_LENGTH)}" has the step "${shownInput(step, SHOWN_LENGTH)}"; a step is a whole number from 1 to ${count} written in digits (the field has ${count} values: ${values})`;
      }
  }
  return undefined;
};

/** Validates a parsed schedule file as a whole, reporting every problem at once. */
/** The longest schedule name its records keep (`cron:` and the name in 200 characters). */
export const MAX_SCHEDULE_NAME = 195;

export const validateSchedules = (raw: unknown, file: string, catalog: ScheduleCatalog): ScheduleValidation => {
  if (!Array.isArray(raw)) return { schedules: [], problems: [`${file}: must be a JSON array of schedules, found ${describeValue(raw)}`] };
  const problems: string[] = [];
  const schedules: Schedule[] = [];
  const seen = new Map<string, { index: number; name: string }>();
  const actionCatalog = { watchPaths: [], llmProviders: catalog.llmProviders };

  raw.forEach((entry: unknown, index) => {
    const name = isObject(entry) && typeof entry.name === 'string' && entry.name.trim() !== '' ? entry.name : undefined;
    const where = `${file}: schedule #${index}${name === undefined ? '' : ` "${shownInput(name, SHOWN_LENGTH)}"`}`;
    const problem = (field: string, message: string): void => void problems.push(`${where}: ${field}: ${message}`);
    if (!isObject(entry)) {
      problems.push(`${where}: must be an object, found ${describeValue(entry)}`);
      return;
    }
    const before = problems.length;

    if (name === undefined) problem('name', requiredAs(isObject(entry) ? entry.name : undefined, 'a non-empty string'));
    // Stored with every occurrence, and as `cron:<name>` with every action record (200 characters): a longer one could never run.
    else if (name.length > MAX_SCHEDULE_NAME) problem('name', `at most ${MAX_SCHEDULE_NAME} characters`);
    else if (unprintableNameProblem(name) !== undefined) problem('name', unprintableNameProblem(name) as string);
    else {
      const duplicate = duplicateNameProblem(name, index, seen, 'schedule');
      if (duplicate !== undefined) problem('name', duplicate);
    }

    const timezone = entry.timezone;
    if (timezone !== undefined && (typeof timezone !== 'string' || timezone.trim() === '')) problem('timezone', 'an IANA time zone name, e.g. Europe/Berlin');
    const expression = entry.schedule;
    if (typeof expression !== 'string' || expression.trim() === '')
      problem('schedule', requiredAs(expression, 'a cron expression of 5 fields (or 6, seconds first)'));
    else {
      const parts = expression.trim().split(/\s+/);
      const fields = parts.length;
      const unsupported = unsupportedCronSyntax(parts) ?? (fields === 5 || fields === 6 ? stepProblem(parts) : undefined);
      if (fields !== 5 && fields !== 6)
        problem('schedule', `"${shownInput(expression, SHOWN_LENGTH)}" has ${fields} fields; a cron expression has 5 (or 6, seconds first)`);
      else if (unsupported !== undefined) problem('schedule', `"${shownInput(expression, SHOWN_LENGTH)}": ${unsupported}`);
      else {
        const refused = catalog.cronProblem(expression, typeof timezone === 'string' ? timezone : undefined);
        if (refused !== undefined) problem(refused.startsWith('timezone') ? 'timezone' : 'schedule', refused.replace(/^timezone: /, ''));
      }
    }

    if (typeof entry.enabled !== 'boolean') problem('enabled', requiredAs(entry.enabled, 'true or false'));
    if (entry.catch_up !== undefined && typeof entry.catch_up !== 'boolean') problem('catch_up', 'true or false (default true)');
    for (const field of Object.keys(entry))
      if (!SCHEDULE_FIELDS.includes(field)) problem(field, `unknown field${didYouMean(field, SCHEDULE_FIELDS, Object.keys(entry))}`);

    const actions: TriggerAction[] = [];
    if (!Array.isArray(entry.actions) || entry.actions.length === 0) problem('actions', requiredAs(entry.actions, 'a non-empty array'));
    else
      entry.actions.forEach((action: unknown, i) => {
        const report = (field: string, message: string) => problem(`actions[${i}]${field ? `.${field}` : ''}`, fromRequestTokens(message));
        if (!isObject(action)) {
          validateAction(action, actionCatalog, report);
          return;
        }
        // Nobody is asked at a schedule's time: an approval would hold every occurrence.
        if ('approval' in action) report('approval', 'not available for schedule actions (approvals are for triggers)');
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
        name: name as string,
        schedule: (expression as string).trim(),
        ...(typeof timezone === 'string' ? { timezone } : {}),
        enabled: entry.enabled as boolean,
        catchUp: entry.catch_up !== false,
        actions,
      });
    }
  });
  return { schedules, problems };
};
