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
}
