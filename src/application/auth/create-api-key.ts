import { displayPrefix } from '../../domain/auth/api-key-format.js';
import type { ApiKeySummary } from '../../domain/auth/api-key-record.js';
import { validateKeyName } from '../../domain/auth/key-name.js';
import type { ApiKeyCrypto } from '../../ports/api-key-crypto.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { KeyRepository } from '../../ports/key-repository.js';

export interface CreateApiKeyInput {
  readonly name: unknown;
}

/** The new key in clear, returned exactly once, with its stored summary. */
export interface CreatedApiKey extends ApiKeySummary {
  readonly key: string;
}

export class CreateApiKey {
  constructor(
    private readonly keys: KeyRepository,
    private readonly crypto: ApiKeyCrypto,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(input: CreateApiKeyInput): Promise<CreatedApiKey> {
    const name = validateKeyName(input.name);
    const key = this.crypto.mint();
    const record = {
      id: this.ids.next(),
      name,
      keyHash: this.crypto.digest(key),
      prefix: displayPrefix(key),
      createdAt: this.clock.now(),
      lastUsedAt: null,
    };
    await this.keys.add(record);
    const { keyHash: _digest, ...summary } = record;
    return { ...summary, key };
  }
}
