import { shownInput } from '../errors/shown-input.js';
import { modelProblem } from '../jobs/job-request.js';
import { didYouMean, nearestName } from '../text/nearest-name.js';
import { findTokenPlaces } from '../templates/shell-contexts.js';
import { findUnclosedTokens, findUnknownTokens, TOKEN } from '../templates/template-tokens.js';
import { describeValue, requiredAs } from './found-value.js';
import type { Trigger, TriggerAction } from './trigger.js';
import { type TriggerCondition, validateWhen } from './trigger-filter.js';

/**
 * What a trigger file is checked against, given by the composition root: the endpoints a
 * trigger may watch (paths without `/api`, the channels' among them), the public endpoints it
 * may not (`publicWatchPaths`: they authenticate no one, so a trigger on one would run for
 * anyone) and the AI providers an agent action may name.
 */
export interface TriggerCatalog {
  /** The authenticated endpoints, never a public one. */
  readonly watchPaths: readonly string[];
  /** The endpoints with no authentication (SPEC 5.1's public ones: `/ping`), named in the problem a trigger on one gets. */
  readonly publicWatchPaths?: readonly string[];
  readonly llmProviders: readonly string[];
}

export interface TriggerValidation {
  /** The valid triggers; use them only when `problems` is empty. */
  readonly triggers: Trigger[];
  /** One line per problem: file, trigger (index and name), field, what is wrong. */
  readonly problems: string[];
}

type Fields = Record<string, unknown>;
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

const TRIGGER_FIELDS = ['name', 'watch_path', 'enabled', 'when', 'actions', 'concurrency'];
/** The most lanes a trigger may have: each is a queue group of its own. */
export const MAX_CONCURRENCY = 100;
const ACTION_FIELDS: Record<TriggerAction['type'], string[]> = {
  agent: ['type', 'job', 'llm_provider', 'llm_model', 'unsafe_raw', 'approval'],
  command: ['type', 'command', 'timeout', 'retries', 'approval'],
  webhook: ['type', 'url', 'method', 'headers', 'vars', 'approval'],
};
const MAX_TIMEOUT_SECONDS = 24 * 60 * 60;

/**
 * Headers a webhook action may not set (any case): those the HTTP client sets itself from the
 * request it sends (content-length from the body, connection; a Host given is kept, for a virtual
 * host reached by address) and those that
 * frame the message or the connection (transfer-encoding, keep-alive, upgrade, te, trailer,
 * expect, which holds the body back for an answer, and the proxy ones). Given, the request
 * would carry two framings (transfer-encoding beside content-length) or the file's value would
 * be overridden without a word.
 */
const TRANSPORT_HEADERS = ['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect'];
const isTransportHeader = (name: string): boolean => TRANSPORT_HEADERS.includes(name.toLowerCase()) || name.toLowerCase().startsWith('proxy-');
/**
 * How deep `vars` may nest, the object itself being the first level: the limit of a JSON request
 * body (MAX_JSON_DEPTH at the edge). The request a webhook action sends is written with
 * JSON.stringify, which runs out of stack a few thousand levels down: such vars were accepted
 * and every send failed (so did a check of the file against the running set at start-up).
 */
export const MAX_VARS_DEPTH = 64;

/** Whether `value` has objects or arrays nested more than `limit` levels deep; without recursion, so any depth is measured. */
const nestedDeeperThan = (value: unknown, limit: number): boolean => {
  const pending: Array<readonly [unknown, number]> = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > limit) return true;
    for (const inner of Object.values(node)) if (typeof inner === 'object' && inner !== null) pending.push([inner, depth + 1]);
  }
  return false;
};

/** Names an object of headers cannot hold as its own entry (`__proto__` is dropped on the way, `constructor` is the object's). */
const OBJECT_INTERNAL_NAMES = ['__proto__', 'constructor'];

/** Validates a parsed trigger file as a whole (SPEC 2.2, 2.3), reporting every problem at once. */
/** The longest trigger name its records keep. */
export const MAX_TRIGGER_NAME = 200;

/**
 * What a trigger's or a schedule's name may not hold: control characters (C0 with line feed
 * and tab, DEL, C1), format characters that show nothing (bidirectional controls, zero-width
 * characters, the byte-order mark, soft hyphens) and the line and paragraph separators. A name
 * is printed in logs, in the CLI's rows and in chat notices: such a character would rewrite an
 * operator's terminal (an escape sequence), forge a row (a line break) or make two names that
 * read alike differ. The zero-width joiner and non-joiner (U+200D, U+200C) are not refused:
 * emoji sequences (👨‍👩‍👧, 🏳️‍🌈) and Persian spelling need them, and they reorder nothing.
 */
const UNPRINTABLE_IN_NAME = /(?![\u200C\u200D])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * Why `name` is refused beside the names `seen` before it (each by its NFC form without white
 * space before or after: the entry's index and the name as written): the same name, or one that
 * reads the same everywhere it is shown — written with other code points for the same characters
 * (`café` as e and a combining accent), or with white space around it (`deploy ` beside
 * `deploy`). Undefined when it is new; then it is added. A name alone is never refused for
 * either (one kept from an earlier version names its stored runs and occurrences).
 */
export const duplicateNameProblem = (name: string, index: number, seen: Map<string, { index: number; name: string }>, kind: string): string | undefined => {
  const key = name.trim().normalize('NFC');
  const before = seen.get(key);
  if (before === undefined) {
    seen.set(key, { index, name });
    return undefined;
  }
  return before.name === name
    ? `duplicate of ${kind} #${before.index}`
    : `reads the same as ${kind} #${before.index}'s name (the same characters, written with other code points or with white space around them): give it another name, or write both alike`;
};

/** Why `name` cannot name a trigger or a schedule for its characters (the first refused one, as U+XXXX); undefined when it can. */
export const unprintableNameProblem = (name: string): string | undefined => {
  // A lone surrogate (`\ud800` in JSON) is no character: records keep the name as JSON, which
  // the database refuses with it (every run of the trigger failed to be queued, for good).
  const lone = /\p{Cs}/u.exec(name);
  if (lone !== null)
    return `holds U+${(lone[0].codePointAt(0) as number).toString(16).toUpperCase()}, half of a surrogate pair without its other half (a \\u escape in the file): no character, and the database cannot store it; write the character itself`;
  const found = UNPRINTABLE_IN_NAME.exec(name);
  if (found !== null) {
    const code = found[0].codePointAt(0) as number;
    return `holds U+${code.toString(16).toUpperCase().padStart(4, '0')}; a name may hold no control character (line breaks and tabs included) and no invisible one (bidirectional controls, zero-width characters)`;
  }
  return undefined;
};

export const validateTriggers = (raw: unknown, file: string, catalog: TriggerCatalog): TriggerValidation => {
  if (!Array.isArray(raw)) return { triggers: [], problems: [`${file}: must be a JSON array of triggers, found ${describeValue(raw)}`] };
  const problems: string[] = [];
  const triggers: Trigger[] = [];
  const seen = new Map<string, { index: number; name: string }>();

  raw.forEach((entry: unknown, index) => {
    const name = isObject(entry) && typeof entry.name === 'string' && entry.name.trim() !== '' ? entry.name : undefined;
    // Cut as a schedule's: a valid name is whole, a refused long one is not repeated by every problem of its entry.
    const where = `${file}: trigger #${index}${name === undefined ? '' : ` "${shownInput(name, MAX_TRIGGER_NAME)}"`}`;
    const problem = (field: string, message: string): void => void problems.push(`${where}: ${field}: ${message}`);
    if (!isObject(entry)) {
      problems.push(`${where}: must be an object, found ${describeValue(entry)}`);
      return;
    }
    const before = problems.length;

    if (name === undefined) problem('name', requiredAs(isObject(entry) ? entry.name : undefined, 'a non-empty string'));
    // Stored with every run and action record (200 characters): a longer one could never run.
    else if (name.length > MAX_TRIGGER_NAME) problem('name', `at most ${MAX_TRIGGER_NAME} characters`);
    else if (unprintableNameProblem(name) !== undefined) problem('name', unprintableNameProblem(name) as string);
    else {
      const duplicate = duplicateNameProblem(name, index, seen, 'trigger');
      if (duplicate !== undefined) problem('name', duplicate);
    }

    const watchPath = entry.watch_path;
    if (typeof watchPath !== 'string' || !watchPath.startsWith('/')) problem('watch_path', requiredAs(watchPath, 'a path starting with /'));
    else if (watchPath === '/api' || watchPath.startsWith('/api/')) problem('watch_path', `write it without the /api prefix: ${watchPath.slice(4) || '/'}`);
    // Checked first, so a catalog that listed a public endpoint among the watchable ones still refuses it.
    else if (catalog.publicWatchPaths?.includes(watchPath))
      problem(
        'watch_path',
        `${watchPath} is public (no authentication): a trigger on it would run for anyone; watch an authenticated endpoint such as /webhook`,
      );
    else if (!catalog.watchPaths.includes(watchPath)) {
      const meant = nearestName(watchPath, catalog.watchPaths);
      problem(
        'watch_path',
        `${watchPath} is not an endpoint${meant === undefined ? '' : ` (did you mean ${meant}?)`}; one of ${catalog.watchPaths.join(', ')}`,
      );
    }

    if (typeof entry.enabled !== 'boolean') problem('enabled', requiredAs(entry.enabled, 'true or false'));
    const concurrency = entry.concurrency;
    if (concurrency !== undefined && (typeof concurrency !== 'number' || !Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY))
      problem(
        'concurrency',
        `a whole number from 1 to ${MAX_CONCURRENCY} (runs of this trigger at once), found ${
          // JSON.stringify writes a number past the double range (1e400, read as Infinity) as null.
          typeof concurrency === 'number' && !Number.isFinite(concurrency) ? 'a number too large to be a finite whole number' : JSON.stringify(concurrency)
        }`,
      );

    for (const field of Object.keys(entry))
      if (!TRIGGER_FIELDS.includes(field)) problem(field, `unknown field${didYouMean(field, TRIGGER_FIELDS, Object.keys(entry))}`);

    const when: TriggerCondition[] | undefined = entry.when === undefined ? undefined : validateWhen(entry.when, problem);

    const actions: TriggerAction[] = [];
    if (!Array.isArray(entry.actions) || entry.actions.length === 0) problem('actions', requiredAs(entry.actions, 'a non-empty array'));
    else
      entry.actions.forEach((action: unknown, i) => {
        const parsed = validateAction(action, catalog, (field, message) => problem(`actions[${i}]${field ? `.${field}` : ''}`, message));
        if (parsed) actions.push(parsed);
      });

    if (problems.length === before) {
      triggers.push({
        name: name as string,
        watchPath: watchPath as string,
        enabled: entry.enabled as boolean,
        ...(when ? { when } : {}),
        actions,
        ...(concurrency === undefined ? {} : { concurrency: concurrency as number }),
      });
    }
  });
  return { triggers, problems };
};

export type Report = (field: string, message: string) => void;

const requiredText = (fields: Fields, field: string, report: Report): string | undefined => {
  const value = fields[field];
  if (typeof value === 'string' && value.trim() !== '') return value;
  report(field, requiredAs(value, 'a non-empty string'));
  return undefined;
};

const checkTokens = (text: string | undefined, field: string, report: Report): void => {
  for (const token of findUnknownTokens(text ?? '')) report(field, `unknown template token ${token}; tokens are {{body…}}, {{query…}}, {{headers…}}`);
  // Rendered as written, never as a value: a token missing its }} is a typo, not text.
  for (const opened of findUnclosedTokens(text ?? '')) report(field, `unclosed template token ${opened}: a token ends with }}, e.g. {{body.ref}}`);
};

/**
 * Why a request token in a webhook action's url or header value is refused: nothing renders
 * there, so it was sent as written (`https://h/items/{{body.id}}` called that very path) without a word.
 */
const notRendered = (token: string): string =>
  `${token} is not rendered here (tokens are rendered in a command and in an agent's job only): it would be sent as written; the request body is sent as the webhook's data field`;

/** Tokens of a command where no value may stand (comments, arithmetic, …): see shell-contexts.ts. */
const checkCommandPlaces = (command: string | undefined, report: Report): void => {
  for (const token of findTokenPlaces(command ?? '')) if ('refused' in token.place) report('command', `${token.token} stands ${token.place.refused}`);
};

/** One action of a trigger (or of a schedule, which shares the action types), reporting each problem by field. */
export const validateAction = (action: unknown, catalog: TriggerCatalog, report: Report): TriggerAction | undefined => {
  const parsed = validateActionFields(action, catalog, report);
  if (!isObject(action) || action.approval === undefined) return parsed;
  if (typeof action.approval !== 'boolean') {
    report('approval', 'must be true or false');
    return undefined;
  }
  return parsed && action.approval ? { ...parsed, approval: true } : parsed;
};

const validateActionFields = (action: unknown, catalog: TriggerCatalog, report: Report): TriggerAction | undefined => {
  if (!isObject(action)) {
    report('', `must be an object, found ${describeValue(action)}`);
    return undefined;
  }
  const type = action.type;
  if (type !== 'agent' && type !== 'command' && type !== 'webhook') {
    report('type', requiredAs(type, 'one of agent, command, webhook'));
    return undefined;
  }
  let valid = true;
  const fail: Report = (field, message) => {
    valid = false;
    report(field, message);
  };
  for (const field of Object.keys(action))
    if (!ACTION_FIELDS[type].includes(field)) fail(field, `unknown field for a ${type} action${didYouMean(field, ACTION_FIELDS[type], Object.keys(action))}`);

  if (type === 'agent') {
    const job = requiredText(action, 'job', fail);
    checkTokens(job, 'job', fail);
    const provider = action.llm_provider;
    if (provider !== undefined && (typeof provider !== 'string' || !catalog.llmProviders.includes(provider))) {
      fail('llm_provider', `must be one of ${catalog.llmProviders.join(', ')}`);
    }
    if (action.llm_model !== undefined) {
      const model = requiredText(action, 'llm_model', fail);
      const problem = model === undefined ? undefined : modelProblem(model);
      if (problem !== undefined) fail('llm_model', problem.message.replace(/^Field llm_model /, ''));
    }
    const unsafeRaw = action.unsafe_raw;
    if (unsafeRaw !== undefined && typeof unsafeRaw !== 'boolean') fail('unsafe_raw', 'must be true or false');
    return valid
      ? {
          type,
          job: job!,
          llmProvider: provider as string | undefined,
          llmModel: action.llm_model as string | undefined,
          ...(unsafeRaw === true ? { unsafeRaw } : {}),
        }
      : undefined;
  }

  if (type === 'command') {
    const command = requiredText(action, 'command', fail);
    checkTokens(command, 'command', fail);
    checkCommandPlaces(command, fail);
    const timeout = action.timeout;
    if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0) || timeout > MAX_TIMEOUT_SECONDS)) {
      fail('timeout', `seconds, a number above 0 and at most ${MAX_TIMEOUT_SECONDS}`);
    }
    const retries = action.retries;
    if (retries !== undefined && (!Number.isInteger(retries) || (retries as number) < 0 || (retries as number) > 10)) {
      fail('retries', 'a whole number from 0 to 10');
    }
    return valid ? { type, command: command!, timeoutSeconds: timeout as number | undefined, retries: retries as number | undefined } : undefined;
  }

  const url = requiredText(action, 'url', fail);
  if (url !== undefined) {
    let protocol = '';
    let credentials = false;
    try {
      const parsed = new URL(url);
      protocol = parsed.protocol;
      credentials = parsed.username !== '' || parsed.password !== '';
    } catch {
      // reported below
    }
    if (protocol !== 'http:' && protocol !== 'https:') fail('url', 'must be an absolute http:// or https:// URL');
    // Fetch refuses such a URL at every delivery: say so at start-up instead.
    else if (credentials) fail('url', 'must not hold a user or password (user:password@): send credentials in a header, e.g. Authorization');
    for (const token of url.match(TOKEN) ?? []) fail('url', notRendered(token));
  }
  const method = action.method ?? 'POST';
  if (method !== 'GET' && method !== 'POST') fail('method', 'must be GET or POST');
  const headers = action.headers ?? {};
  if (!isObject(headers)) fail('headers', 'must be an object of header names to string values');
  else {
    const seen = new Map<string, string>();
    for (const [header, value] of Object.entries(headers)) {
      // Header names are case-insensitive: two spellings of one name would be sent as two lines (or one of them lost).
      const same = seen.get(header.toLowerCase());
      if (same !== undefined) fail(`headers.${header}`, `is the same header as headers.${same} (header names ignore case): give it once`);
      else seen.set(header.toLowerCase(), header);
      if (typeof value !== 'string') fail(`headers.${header}`, 'must be a string');
      // What HTTP lets a header value hold (Node refuses the rest at every send): no line breaks, no NUL, nothing past U+00FF.
      else if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(value))
        fail(`headers.${header}`, 'holds a character a header value cannot (a line break, a control character, or one past U+00FF)');
      else for (const token of value.match(TOKEN) ?? []) fail(`headers.${header}`, notRendered(token));
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) fail(`headers.${header}`, 'is not a valid header name');
      else if (isTransportHeader(header))
        fail(
          `headers.${header}`,
          `is set by the HTTP client or frames the message, so a webhook action may not set it (${TRANSPORT_HEADERS.join(', ')}, proxy-*)`,
        );
      else if (OBJECT_INTERNAL_NAMES.includes(header.toLowerCase()))
        fail(`headers.${header}`, 'is no header name an action may use (__proto__ and constructor would be lost on the way)');
    }
  }
  const vars = action.vars ?? {};
  if (!isObject(vars)) fail('vars', 'must be an object');
  else if ('data' in vars) fail('vars.data', 'is reserved for the original request body');
  else if (nestedDeeperThan(vars, MAX_VARS_DEPTH))
    fail(
      'vars',
      `nested deeper than ${MAX_VARS_DEPTH} levels (objects and arrays inside one another), as no request body may be; the request could not be written`,
    );
  return valid
    ? { type, url: url!, method: method as 'GET' | 'POST', headers: headers as Record<string, string>, vars: vars as Record<string, unknown> }
    : undefined;
};
