import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { KeyDigest, KeyDigestSnapshot } from '../../ports/key-digest-snapshot.js';

const VERSION = 1;
const DIGEST = /^[0-9a-f]{64}$/;

/**
 * KeyDigestSnapshot in one JSON file (owner-only, in the data directory), replaced atomically:
 * written beside it, flushed, renamed over it, the directory flushed. A file that is missing,
 * damaged or of another version reads as no copy at all.
 */
export class FileKeyDigestSnapshot implements KeyDigestSnapshot {
  /** Writes one at a time, in the order asked: the last write asked is the copy that stays. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly file: string) {}

  write(keys: readonly KeyDigest[]): Promise<void> {
    const text = JSON.stringify({ v: VERSION, keys: keys.map((key) => ({ id: key.id, keyHash: key.keyHash })) });
    return this.#serially(async () => {
      const dir = dirname(this.file);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const temporary = `${this.file}.new`;
      const handle = await open(temporary, 'w', 0o600);
      try {
        await handle.writeFile(text);
        await handle.datasync();
      } finally {
        await handle.close();
      }
      await rename(temporary, this.file);
      const directory = await open(dir, 'r');
      try {
        await directory.sync();
      } finally {
        await directory.close();
      }
    });
  }

  async read(): Promise<ReadonlyMap<string, string> | undefined> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(this.file, 'utf8'));
    } catch {
      return undefined;
    }
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { v, keys } = parsed as { v?: unknown; keys?: unknown };
    if (v !== VERSION || !Array.isArray(keys)) return undefined;
    const digests = new Map<string, string>();
    for (const key of keys) {
      if (typeof key !== 'object' || key === null) return undefined;
      const { id, keyHash } = key as { id?: unknown; keyHash?: unknown };
      if (typeof id !== 'string' || id === '' || typeof keyHash !== 'string' || !DIGEST.test(keyHash)) return undefined;
      digests.set(keyHash, id);
    }
    return digests;
  }

  remove(): Promise<void> {
    return this.#serially(() => rm(this.file, { force: true }));
  }

  #serially(work: () => Promise<void>): Promise<void> {
    const done = this.#queue.then(work, work);
    this.#queue = done.catch(() => undefined);
    return done;
  }
}
