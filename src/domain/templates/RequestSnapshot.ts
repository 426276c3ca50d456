/**
 * What a trigger may read of the request that fired it (SPEC 2.4). Header names are
 * lower-case; credentials (API key, authorization, cookies, signatures) are never included.
 */
export interface RequestSnapshot {
  readonly body: unknown;
  readonly query: Readonly<Record<string, string | readonly string[]>>;
  readonly headers: Readonly<Record<string, string>>;
}

/** Headers that carry credentials: never kept in a snapshot, so never stored, rendered or forwarded. */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'x-api-key',
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-hub-signature',
  'x-hub-signature-256',
  'x-telegram-bot-api-secret-token',
];

/** Builds a snapshot from raw request parts, lower-casing header names and dropping credentials. */
export const snapshotRequest = (
  body: unknown,
  query: Readonly<Record<string, string | readonly string[] | undefined>>,
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
): RequestSnapshot => {
  const keptHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || CREDENTIAL_HEADERS.includes(lower)) continue;
    keptHeaders[lower] = typeof value === 'string' ? value : value.join(', ');
  }
  const keptQuery: Record<string, string | readonly string[]> = {};
  for (const [name, value] of Object.entries(query)) if (value !== undefined) keptQuery[name] = value;
  return { body, query: keptQuery, headers: keptHeaders };
};
