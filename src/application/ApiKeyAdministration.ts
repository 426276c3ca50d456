import type { ApiKeySummary } from '../domain/auth/ApiKeyRecord.js';
import type { CreateApiKey, CreatedApiKey } from './CreateApiKey.js';
import type { ListApiKeys } from './ListApiKeys.js';
import type { RevokeApiKey } from './RevokeApiKey.js';

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
