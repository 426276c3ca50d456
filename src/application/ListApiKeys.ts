import { summarize, type ApiKeySummary } from '../domain/auth/ApiKeyRecord.js';
import type { KeyRepository } from '../ports/KeyRepository.js';

export class ListApiKeys {
  constructor(private readonly keys: KeyRepository) {}

  async execute(): Promise<ApiKeySummary[]> {
    return (await this.keys.list()).map(summarize);
  }
}
