/** A stored API key as the core sees it. The key itself is never part of it, only its digest. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly name: string;
  /** Lower-case hex SHA-256 of the key. */
  readonly keyHash: string;
  /** `agw_` and the first four characters after it, for display. */
  readonly prefix: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
}

/** The view of a key that may be shown anywhere (CLI, UI, logs): no digest. */
export interface ApiKeySummary {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
}

export const summarize = (record: ApiKeyRecord): ApiKeySummary => ({
  id: record.id,
  name: record.name,
  prefix: record.prefix,
  createdAt: record.createdAt,
  lastUsedAt: record.lastUsedAt,
});
