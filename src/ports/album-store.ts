import type { ChannelMessage } from '../domain/messaging/channel-message.js';

/** What is stored of an album so far. */
export interface StoredAlbum {
  /** Its messages, in the order they were stored. */
  readonly items: readonly ChannelMessage[];
  /** When its last message was stored; undefined when none is. */
  readonly lastArrivedAt: Date | undefined;
}

/**
 * The messages of albums (messages sent together, `metadata.albumId`), each stored as it
 * arrives, before the album's one answer is queued: the answer reads them all (a chat platform
 * delivers an album's messages one by one, the caption on any of them).
 */
export interface AlbumStore {
  /**
   * Stores a message of the album `album` (up to 300 characters) as `item` (its message id, up
   * to 100) that arrived `at`. Idempotent: a message stored before (a redelivery) is kept as it
   * was, its arrival time too. Durable once resolved.
   * @throws when the store fails (nothing is stored then).
   */
  add(album: string, item: string, message: ChannelMessage, at: Date): Promise<void>;
  /** The album's messages stored so far (none: an empty list). Sees what any replica stored. */
  read(album: string): Promise<StoredAlbum>;
  /** Retention: forgets up to `limit` messages stored before `cutoff`, oldest first; returns how many (fewer than `limit`: none is left). */
  deleteOlderThan(cutoff: Date, limit: number): Promise<number>;
}
