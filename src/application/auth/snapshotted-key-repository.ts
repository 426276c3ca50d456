import type { ApiKeyRecord } from '../../domain/auth/api-key-record.js';
import type { KeyDigestSnapshot } from '../../ports/key-digest-snapshot.js';
import type { KeyRepository } from '../../ports/key-repository.js';
import type { Logger } from '../../ports/logger.js';

/**
 * A KeyRepository that keeps the KeyDigestSnapshot current (EarlyIntake reads it while the
 * embedded database opens): after each key added or removed through it, the snapshot is written
 * again from the stored keys, before the change is answered. A key removed leaves the snapshot
 * before it leaves the store, so that a stop (a crash, a kill) between the two leaves a snapshot
 * without a key still stored — whose requests then wait for the database at the next start —
 * never one with a key revoked, whose requests the next start's early intake would answer 200
 * and then drop. A removal whose snapshot cannot be written removes the snapshot instead (no key
 * of it is then admitted early); when even that fails, the removed key may still be admitted
 * early at the next start, and its requests are dropped when they are imported
 * (ImportEarlyIntake checks every key again). Reads pass through.
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
    // Out of the snapshot first (see the class); a key its store still holds and no longer
    // lists is let be.
    const stored = await this.keys.list();
    if (stored.some((key) => key.id === id)) {
      const kept = stored.filter((key) => key.id !== id).map(({ id: keyId, keyHash }) => ({ id: keyId, keyHash }));
      await this.snapshot.write(kept).catch((error: unknown) => this.#dropSnapshot(error));
    }
    let removed: boolean;
    try {
      removed = await this.keys.remove(id);
    } catch (error) {
      // Still stored, perhaps: the snapshot is written again from the store (a key missing from
      // it only waits for the database at the next start).
      await this.refresh().catch((failure: unknown) => this.logger.warn({ err: failure }, 'could not update the snapshot of API key digests'));
      throw error;
    }
    // Again once it is gone: a key added meanwhile may have written a snapshot read before.
    if (removed) await this.refresh().catch((error: unknown) => this.#dropSnapshot(error));
    return removed;
  }

  /** The snapshot could not be written with a key removed: it is removed, so that no key is admitted early from it. */
  async #dropSnapshot(error: unknown): Promise<void> {
    this.logger.warn({ err: error }, 'could not update the snapshot of API key digests: it is removed');
    await this.snapshot
      .remove()
      .catch((removal: unknown) =>
        this.logger.error(
          { err: removal },
          'could not remove the snapshot of API key digests: a removed key may be admitted at the next start (its requests are not run)',
        ),
      );
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
