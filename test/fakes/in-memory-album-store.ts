import type { ChannelMessage } from '../../src/domain/messaging/channel-message.js';
import type { AlbumStore, StoredAlbum } from '../../src/ports/album-store.js';

/** AlbumStore in a Map; passes the same contract suite as the database adapter. */
export class InMemoryAlbumStore implements AlbumStore {
  readonly #items = new Map<string, { readonly album: string; readonly message: ChannelMessage; arrivedAt: Date }>();
  /** Every `add`, repeats included. */
  adds = 0;

  async add(album: string, item: string, message: ChannelMessage, at: Date): Promise<void> {
    this.adds++;
    const key = JSON.stringify([album, item]);
    if (!this.#items.has(key)) this.#items.set(key, { album, message: structuredClone(message), arrivedAt: new Date(at) });
  }

  async read(album: string): Promise<StoredAlbum> {
    const items = [...this.#items.values()].filter((entry) => entry.album === album).sort((a, b) => a.arrivedAt.getTime() - b.arrivedAt.getTime());
    const last = items.at(-1)?.arrivedAt;
    return { items: items.map((entry) => structuredClone(entry.message)), lastArrivedAt: last === undefined ? undefined : new Date(last) };
  }

  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const old = [...this.#items]
      .filter(([, entry]) => entry.arrivedAt < cutoff)
      .sort(([, a], [, b]) => a.arrivedAt.getTime() - b.arrivedAt.getTime())
      .slice(0, limit);
    for (const [key] of old) this.#items.delete(key);
    return old.length;
  }
}
