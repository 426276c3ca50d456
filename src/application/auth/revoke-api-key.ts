import { DomainError } from '../../domain/errors/domain-error.js';
import { isUuid } from '../../domain/ids/is-uuid.js';
import type { KeyRepository } from '../../ports/key-repository.js';

/** Deletes a key's record, which revokes the key at once. */
export class RevokeApiKey {
  constructor(private readonly keys: KeyRepository) {}

  async execute(input: { readonly id: unknown }): Promise<void> {
    if (typeof input.id !== 'string' || !isUuid(input.id)) {
      throw new DomainError('invalid_input', 'Key id must be a UUID');
    }
    if (!(await this.keys.remove(input.id.toLowerCase()))) {
      throw new DomainError('not_found', `No API key with id ${input.id}`);
    }
  }
}
