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

const withoutFields = (body: unknown, fields: readonly string[]): unknown => {
  if (fields.length === 0 || typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  return Object.fromEntries(Object.entries(body).filter(([name]) => !fields.includes(name)));
};

/**
 * Builds a snapshot from raw request parts, lower-casing header names and dropping
 * credentials: CREDENTIAL_HEADERS and `moreCredentials` (lower-case; the channels'), and the
 * body's `credentialFields` (top-level fields of an object body: a registration's bot token).
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
