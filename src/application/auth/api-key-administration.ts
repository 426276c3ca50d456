import type { ApiKeySummary } from '../../domain/auth/api-key-record.js';
import type { CreateApiKey, CreatedApiKey } from './create-api-key.js';
import type { ListApiKeys } from './list-api-keys.js';
import type { RevokeApiKey } from './revoke-api-key.js';

/**
 * Key management as the CLI and the admin UI use it. Served in-process by the use
 * cases below, or remotely by the running server's admin socket (embedded database).
 */
export interface KeyAdministration {
  create(name: string): Promise<CreatedApiKey>;
  list(): Promise<ApiKeySummary[]>;
  revoke(id: string): Promise<void>;
}

export class ApiKeyAdministration implements KeyAdministration {
  constructor(
    private readonly createKey: CreateApiKey,
    private readonly listKeys: ListApiKeys,
    private readonly revokeKey: RevokeApiKey,
  ) {}

  create(name: string): Promise<CreatedApiKey> {
    return this.createKey.execute({ name });
  }
  list(): Promise<ApiKeySummary[]> {
    return this.listKeys.execute();
  }
  revoke(id: string): Promise<void> {
    return this.revokeKey.execute({ id });
  }
}
