import type { KeyDigest, KeyDigestSnapshot } from '../../src/ports/key-digest-snapshot.js';

/** KeyDigestSnapshot in memory; `failWrites` makes writes reject (and `failRemoves` removals). */
export class InMemoryKeyDigestSnapshot implements KeyDigestSnapshot {
  keys: readonly KeyDigest[] | undefined;
  failWrites = false;
  failRemoves = false;

  async write(keys: readonly KeyDigest[]): Promise<void> {
    if (this.failWrites) throw new Error('disk full');
    this.keys = keys.map(({ id, keyHash }) => ({ id, keyHash }));
  }

  async read(): Promise<ReadonlyMap<string, string> | undefined> {
    return this.keys === undefined ? undefined : new Map(this.keys.map((key) => [key.keyHash, key.id]));
  }

  async remove(): Promise<void> {
    if (this.failRemoves) throw new Error('read-only file system');
    this.keys = undefined;
  }
}
