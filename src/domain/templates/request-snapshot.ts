import { parseExactJson } from './exact-json.js';

/**
 * What a trigger may read of the request that fired it (SPEC 2.4). Header names are
 * lower-case; credentials (API key, authorization, cookies, signatures, tokens: isCredentialHeader)
 * are never included. Every header and query parameter is an own data property, `__proto__`
 * too (look them up with Object.hasOwn).
 */
export interface RequestSnapshot {
  readonly body: unknown;
  readonly query: Readonly<Record<string, string | readonly string[]>>;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Headers that carry credentials on any endpoint: never kept in a snapshot, so never stored,
 * rendered or forwarded. Each messaging channel adds its own (MessagingChannel.credentialHeaders).
 * Besides these, any header whose name says it holds a credential is dropped
 * (CREDENTIAL_NAME_PATTERNS).
 */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'x-api-key',
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-hub-signature',
  'x-hub-signature-256',
  // Honeycomb's API key, named after the team.
  'x-honeycomb-team',
];

/**
 * What in a header's name (lower-case) says it carries a credential: a name any of them matches
 * is dropped, unless it is one of IDENTITY_HEADERS or ORDINARY_HEADERS. docs/triggers.md
 * ("Template tokens") lists them for operators; keep both in step.
 */
export const CREDENTIAL_NAME_PATTERNS: readonly RegExp[] = [
  // Authorization, Proxy-Authorization, X-Forwarded-Authorization, Authentication.
  /authori[sz]ation|authentication/,
  // `auth` anywhere but in `author` (X-Author, X-Commit-Author, an HTTP/2 `:authority`): Auth,
  // X-Auth, X-Auth-Token, X-Auth-User, X-Authcode, X-Myauth, X-Authentik-Meta. The identities
  // proxies set (X-Authentik-Username, X-Goog-Authenticated-User-Email…) are IDENTITY_HEADERS.
  /auth(?!or)/,
  // X-Gitlab-Token, Private-Token, X-Csrf-Token, X-Amz-Security-Token, X-Auth-Request-Access-Token.
  /token/,
  // X-Webhook-Secret, X-Telegram-Bot-Api-Secret-Token, Cf-Access-Client-Secret.
  /secret/,
  // X-Password, X-Passwd, X-Passphrase.
  /passw|passphrase/,
  // A password or a signature as a word of the name: X-Pass, X-Pwd, X-Api-Sig, X-Sig-V1 (not
  // X-Passenger, X-Bypass, X-Signal).
  /(?:^|[-_.])(?:pass|pwd|sig)(?:$|[-_.])/,
  // A bearer token by another name: X-Bearer, Bearer.
  /bearer/,
  // X-Hub-Signature-256, Stripe-Signature, X-Slack-Signature, X-Shopify-Hmac-Sha256.
  /signature|hmac/,
  // X-Session-Id, Cookie, Set-Cookie.
  /session|cookie/,
  // X-Client-Credentials.
  /credential/,
  // X-Jwt-Assertion, Cf-Access-Jwt-Assertion, X-Goog-Iap-Jwt-Assertion, X-Authentik-Jwt.
  /jwt/,
  // OpenID Connect claims and proof-of-possession tokens: X-Amzn-Oidc-Data, X-Amzn-Oidc-Accesstoken, DPoP.
  /oidc|dpop/,
  // API keys run together: X-Apikey, Api_Key, X-Authkey, Ocp-Apim-Subscription-Key, X-Functions-Key, X-Access-Key.
  /(?:api|auth|access|private|subscription|functions)[-_]?key/,
  // Any other key, as the name's last word: Key, X-Key, X-Master-Key, X-Admin-Key, X-Client-Key,
  // DD-Application-Key, X-App-Key, X-Webhook-Key, X-Shared-Key, X-License-Key. The keys that are
  // no credential are ORDINARY_HEADERS (Idempotency-Key).
  /(?:^|[-_.])key$/,
];

/**
 * Headers CREDENTIAL_NAME_PATTERNS match that carry no credential, kept in snapshots: a request's
 * idempotency key, the WebSocket handshake's nonce, Bitbucket's event name (`repo:push`).
 */
export const ORDINARY_HEADERS: readonly string[] = ['idempotency-key', 'x-idempotency-key', 'sec-websocket-key', 'x-event-key'];

/**
 * Headers a reverse proxy sets to say who the user it authenticated is (a name, an email, an id,
 * groups): identities, not credentials, and named by the proxy, so an operator cannot rename
 * them. Kept in snapshots whatever CREDENTIAL_NAME_PATTERNS say — only these exact names, so a
 * credential a proxy passes on (X-Auth-Request-Access-Token, X-Authentik-Jwt,
 * Cf-Access-Jwt-Assertion) stays dropped.
 */
export const IDENTITY_HEADERS: readonly string[] = [
  // oauth2-proxy
  'x-auth-request-user',
  'x-auth-request-email',
  'x-auth-request-preferred-username',
  'x-auth-request-groups',
  // Cloudflare Access, Google IAP
  'cf-access-authenticated-user-email',
  'x-goog-authenticated-user-email',
  'x-goog-authenticated-user-id',
  // authentik
  'x-authentik-username',
  'x-authentik-email',
  'x-authentik-name',
  'x-authentik-uid',
  'x-authentik-groups',
  // Authelia, nginx/Apache auth modules and others
  'remote-user',
  'remote-email',
  'remote-name',
  'remote-groups',
  'x-forwarded-user',
  'x-forwarded-email',
  'x-forwarded-preferred-username',
  'x-forwarded-groups',
  // AWS Application Load Balancer (the user's subject; its X-Amzn-Oidc-Data and -Accesstoken are dropped)
  'x-amzn-oidc-identity',
];

const isCredentialName = (lowerCaseName: string): boolean =>
  CREDENTIAL_HEADERS.includes(lowerCaseName) ||
  (!IDENTITY_HEADERS.includes(lowerCaseName) &&
    !ORDINARY_HEADERS.includes(lowerCaseName) &&
    CREDENTIAL_NAME_PATTERNS.some((pattern) => pattern.test(lowerCaseName)));

/**
 * isCredentialHeader's answers by name: a request's dozen headers cost a lookup each, not a dozen
 * patterns. Bounded — cleared when full — so that callers sending ever new header names cannot
 * make it grow.
 */
const answers = new Map<string, boolean>();
const MAX_ANSWERS = 1_000;

/** How many names isCredentialHeader remembers (tests: it stays at most 1 000). */
export const credentialAnswersHeld = (): number => answers.size;

/** Whether a header (its lower-case name) carries a credential on any endpoint: kept out of every snapshot. */
export const isCredentialHeader = (lowerCaseName: string): boolean => {
  let credential = answers.get(lowerCaseName);
  if (credential === undefined) {
    credential = isCredentialName(lowerCaseName);
    if (answers.size >= MAX_ANSWERS) answers.clear();
    answers.set(lowerCaseName, credential);
  }
  return credential;
};

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
 * credentials: the headers isCredentialHeader names and `moreCredentials` (lower-case; the
 * channels'), and the body's `credentialFields` (a registration's bot token, Slack's
 * verification token: see withoutFields for nested ones). Headers and query parameters are
 * defined as own properties (Object.fromEntries), so one named `__proto__` is kept as data, as
 * JSON.parse keeps it when the stored snapshot is read back.
 */
export const snapshotRequest = (
  body: unknown,
  query: Readonly<Record<string, string | readonly string[] | undefined>>,
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  moreCredentials: readonly string[] = [],
  credentialFields: readonly string[] = [],
): RequestSnapshot => {
  const keptHeaders: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || isCredentialHeader(lower) || moreCredentials.includes(lower)) continue;
    keptHeaders.push([lower, typeof value === 'string' ? value : value.join(', ')]);
  }
  const keptQuery: [string, string | readonly string[]][] = [];
  for (const [name, value] of Object.entries(query)) if (value !== undefined) keptQuery.push([name, value]);
  return { body: withoutFields(body, credentialFields), query: Object.fromEntries(keptQuery), headers: Object.fromEntries(keptHeaders) };
};

/**
 * A request snapshot from the JSON text it is stored as (FireTriggers writes it with
 * JSON.stringify), with the numbers of its body exactly as they were sent: a trigger run, and
 * what operators are shown of it, sees the digits of a 64-bit id, not a rounded double.
 * @throws SyntaxError for text that is not JSON.
 */
export const parseStoredSnapshot = (text: string): RequestSnapshot => parseExactJson(text) as RequestSnapshot;
