import { summarize, type ApiKeySummary } from '../../domain/auth/api-key-record.js';
import type { KeyRepository } from '../../ports/key-repository.js';

export class ListApiKeys {
  constructor(private readonly keys: KeyRepository) {}

  async execute(): Promise<ApiKeySummary[]> {
    return (await this.keys.list()).map(summarize);
  }
}
