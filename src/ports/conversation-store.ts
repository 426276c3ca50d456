export interface ConversationTurn {
  readonly role: 'user' | 'assistant';
  readonly text: string;
}

/** Per-thread conversation memory of the chat agent. Thread ids are namespaced by channel (`<channel>:<chat>`). */
export interface ConversationStore {
  /** The last `limit` turns of the thread, oldest first. */
  recent(threadId: string, limit: number): Promise<ConversationTurn[]>;
  /**
   * Appends turns at the end of the thread, in order. Text is kept as given, except that each
   * NUL and each lone surrogate (which a database refuses) is kept as U+FFFD.
   */
  append(threadId: string, turns: readonly ConversationTurn[]): Promise<void>;
  /** Forgets the thread (a fresh conversation starts). */
  clear(threadId: string): Promise<void>;
  /**
   * Retention: deletes up to `limit` turns appended before `cutoff`, oldest first, of any
   * thread, and returns how many (fewer than `limit`: none is left). A thread keeps its
   * later turns; `recent` never returns a deleted turn afterwards.
   */
  deleteOlderThan(cutoff: Date, limit: number): Promise<number>;
}
