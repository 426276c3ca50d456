import { parseExactJson } from './exact-json.js';

/**
 * What a trigger may read of the request that fired it (SPEC 2.4). Header names are
 * lower-case; credentials (API key, authorization, cookies, signatures) are never included.
 */
export interface RequestSnapshot {
  readonly body: unknown;
  readonly query: Readonly<Record<string, string | readonly string[]>>;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Headers that carry credentials on any endpoint: never kept in a snapshot, so never stored,
 * rendered or forwarded. Each messaging channel adds its own (MessagingChannel.credentialHeaders).
 */
export const CREDENTIAL_HEADERS: readonly string[] = ['x-api-key', 'authorization', 'proxy-authorization', 'cookie', 'x-hub-signature', 'x-hub-signature-256'];

/** A credential field's place in a body: the names from the top-level object down. */
type FieldPath = readonly string[];

/**
 * `value` without the fields at `paths` (each relative to `value`). A step into a string that
 * holds a JSON object reads it as one — a form field carrying JSON, as Slack's interactivity
 * `payload` — and writes it again without the fields; a string that holds none of them, or no
 * JSON object, is kept as sent. Arrays are not looked into. Values with nothing removed are
 * returned as they are.
 */
const withoutPaths = (value: unknown, paths: readonly FieldPath[], nested: boolean): unknown => {
  if (typeof value === 'string') {
    if (!nested || !value.trimStart().startsWith('{')) return value;
    let parsed: unknown;
    try {
      parsed = parseExactJson(value);
    } catch {
      return value;
    }
    const stripped = withoutPaths(parsed, paths, true);
    return stripped === parsed ? value : JSON.stringify(stripped);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  let changed = false;
  const kept: [string, unknown][] = [];
  for (const [name, field] of Object.entries(value)) {
    const here = paths.filter((path) => path[0] === name);
    if (here.some((path) => path.length === 1)) {
      changed = true;
      continue;
    }
    const inside = here.map((path) => path.slice(1));
    const inner = inside.length === 0 ? field : withoutPaths(field, inside, true);
    if (inner !== field) changed = true;
    kept.push([name, inner]);
  }
  // fromEntries defines each field (a JSON `__proto__` field stays a field).
  return changed ? Object.fromEntries(kept) : value;
};

/**
 * The body without its credential fields: each a top-level field's name, or names joined by `.`
 * for a field inside one (`payload.token`: the `token` of the JSON in the form field `payload`).
 */
const withoutFields = (body: unknown, fields: readonly string[]): unknown => {
  if (fields.length === 0) return body;
  return withoutPaths(
    body,
    fields.map((field) => field.split('.')),
    false,
  );
};

/**
 * Builds a snapshot from raw request parts, lower-casing header names and dropping
 * credentials: CREDENTIAL_HEADERS and `moreCredentials` (lower-case; the channels'), and the
 * body's `credentialFields` (a registration's bot token, Slack's verification token: see
 * withoutFields for nested ones).
 */
export const snapshotRequest = (
  body: unknown,
  query: Readonly<Record<string, string | readonly string[] | undefined>>,
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  moreCredentials: readonly string[] = [],
  credentialFields: readonly string[] = [],
): RequestSnapshot => {
  const keptHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || CREDENTIAL_HEADERS.includes(lower) || moreCredentials.includes(lower)) continue;
    keptHeaders[lower] = typeof value === 'string' ? value : value.join(', ');
  }
  const keptQuery: Record<string, string | readonly string[]> = {};
  for (const [name, value] of Object.entries(query)) if (value !== undefined) keptQuery[name] = value;
  return { body: withoutFields(body, credentialFields), query: keptQuery, headers: keptHeaders };
};

/**
 * A request snapshot from the JSON text it is stored as (FireTriggers writes it with
 * JSON.stringify), with the numbers of its body exactly as they were sent: a trigger run, and
 * what operators are shown of it, sees the digits of a 64-bit id, not a rounded double.
 * @throws SyntaxError for text that is not JSON.
 */
export const parseStoredSnapshot = (text: string): RequestSnapshot => parseExactJson(text) as RequestSnapshot;
