import type { ApiKeyRecord } from '../../domain/auth/api-key-record.js';
import type { KeyDigestSnapshot } from '../../ports/key-digest-snapshot.js';
import type { KeyRepository } from '../../ports/key-repository.js';
import type { Logger } from '../../ports/logger.js';

/**
 * A KeyRepository that keeps the KeyDigestSnapshot current (EarlyIntake reads it while the
 * embedded database opens): after each key added or removed through it, the snapshot is written
 * again from the stored keys, before the change is answered. A removal whose snapshot cannot be
 * written removes the snapshot instead (no key of it is then admitted early); when even that
 * fails, the removed key may still be admitted early at the next start, and its requests are
 * dropped when they are imported (ImportEarlyIntake checks every key again). Reads pass through.
 */
export class SnapshottedKeyRepository implements KeyRepository {
  constructor(
    /** The repository it passes everything to. */
    readonly keys: KeyRepository,
    private readonly snapshot: KeyDigestSnapshot,
    private readonly logger: Logger,
  ) {}

  /** Writes the snapshot from the stored keys (at start: keys may have changed while the service was down). */
  async refresh(): Promise<void> {
    const keys = await this.keys.list();
    await this.snapshot.write(keys.map(({ id, keyHash }) => ({ id, keyHash })));
  }

  async add(record: ApiKeyRecord): Promise<void> {
    await this.keys.add(record);
    // A new key missing from the snapshot only waits for the database at the next start.
    await this.refresh().catch((error: unknown) => this.logger.warn({ err: error }, 'could not update the snapshot of API key digests'));
  }

  async remove(id: string): Promise<boolean> {
    const removed = await this.keys.remove(id);
    if (removed) {
      await this.refresh().catch(async (error: unknown) => {
        this.logger.warn({ err: error }, 'could not update the snapshot of API key digests: it is removed');
        await this.snapshot
          .remove()
          .catch((removal: unknown) =>
            this.logger.error(
              { err: removal },
              'could not remove the snapshot of API key digests: a removed key may be admitted at the next start (its requests are not run)',
            ),
          );
      });
    }
    return removed;
  }

  findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    return this.keys.findByHash(keyHash);
  }

  knownByHash(keyHash: string): ApiKeyRecord | undefined {
    return this.keys.knownByHash(keyHash);
  }

  list(): Promise<ApiKeyRecord[]> {
    return this.keys.list();
  }

  touch(id: string, at: Date): Promise<void> {
    return this.keys.touch(id, at);
  }
}
