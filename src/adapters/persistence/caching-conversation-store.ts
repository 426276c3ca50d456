import { storableText } from '../../domain/text/storable-text.js';
import type { ConversationStore, ConversationTurn, StoredAnswer } from '../../ports/conversation-store.js';

/** Threads whose turns are kept in memory; the least recently used is dropped beyond this. */
const MAX_THREADS = 1000;

interface Cached {
  /** The last turns of the thread, oldest first. */
  readonly turns: ConversationTurn[];
  /** True when `turns` is the whole thread, so any `limit` can be served from it. */
  complete: boolean;
}

/**
 * Keeps the recent turns of active threads in memory in front of another store, so a chat
 * message costs one write instead of a read and a write. Only correct while this process is
 * the only writer of the store: the embedded database, which one process holds (EmbeddedLock).
 */
export class CachingConversationStore implements ConversationStore {
  readonly #threads = new Map<string, Cached>();
  /** Bumped by every write, so a read that raced with a write is not cached. */
  #writes = 0;

  constructor(
    private readonly inner: ConversationStore,
    private readonly keepTurns: number,
  ) {}

  async recent(threadId: string, limit: number): Promise<ConversationTurn[]> {
    const cached = this.#threads.get(threadId);
    if (cached !== undefined && (cached.complete || cached.turns.length >= limit)) {
      this.#touch(threadId, cached);
      return cached.turns.slice(-limit);
    }
    const read = Math.max(limit, this.keepTurns);
    const writesBefore = this.#writes;
    const turns = await this.inner.recent(threadId, read);
    if (this.#writes === writesBefore) this.#touch(threadId, { turns: [...turns], complete: turns.length < read });
    return turns.slice(-limit);
  }

  async append(threadId: string, turns: readonly ConversationTurn[]): Promise<void> {
    this.#writes++;
    await this.inner.append(threadId, turns).catch((error: unknown) => {
      this.#threads.delete(threadId);
      throw error;
    });
    this.#appended(threadId, turns);
  }

  /** The store decides whether the answer's turns are stored; the cache takes them in only then. */
  async appendAnswer(threadId: string, turns: readonly ConversationTurn[], answerKey: string): Promise<StoredAnswer> {
    this.#writes++;
    const result = await this.inner.appendAnswer(threadId, turns, answerKey).catch((error: unknown) => {
      this.#threads.delete(threadId);
      throw error;
    });
    if (result.stored) this.#appended(threadId, turns);
    return result;
  }

  async answerOf(threadId: string, answerKey: string): Promise<string | undefined> {
    return this.inner.answerOf(threadId, answerKey);
  }

  #appended(threadId: string, turns: readonly ConversationTurn[]): void {
    const cached = this.#threads.get(threadId);
    if (cached === undefined) return;
    // The cache holds what the store holds.
    cached.turns.push(...turns.map((turn) => ({ ...turn, text: storableText(turn.text) })));
    if (cached.turns.length > this.keepTurns) {
      cached.turns.splice(0, cached.turns.length - this.keepTurns);
      cached.complete = false;
    }
  }

  async clear(threadId: string): Promise<void> {
    this.#writes++;
    this.#threads.delete(threadId);
    await this.inner.clear(threadId);
  }

  /** Drops every cached thread when old turns went: any of them may have held some. */
  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    this.#writes++;
    const deleted = await this.inner.deleteOlderThan(cutoff, limit);
    if (deleted > 0) this.#threads.clear();
    // Reads that ran alongside the delete may have seen either side of it: none of them is cached.
    this.#writes++;
    return deleted;
  }

  #touch(threadId: string, entry: Cached): void {
    this.#threads.delete(threadId);
    this.#threads.set(threadId, entry);
    if (this.#threads.size > MAX_THREADS) this.#threads.delete(this.#threads.keys().next().value as string);
  }
}
