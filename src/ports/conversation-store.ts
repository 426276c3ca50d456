export interface ConversationTurn {
  readonly role: 'user' | 'assistant';
  readonly text: string;
}

/** What appendAnswer did: stored the exchange now, or found one of its key (whose answer is `answer`). */
export interface StoredAnswer {
  readonly stored: boolean;
  readonly answer: string;
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
  /**
   * Appends the exchange of one answer, identified across its attempts by `answerKey` (a chat
   * task's `task:<id>`, up to 255 characters, unique across threads): as `append`, in one
   * statement with the key, unless the thread holds an exchange of that key already — then
   * nothing is stored. `turns` is one user turn and one assistant turn. Atomic across replicas:
   * of appends of one key at once, exactly one stores its turns. Returns whether they were
   * stored, and the assistant text the key names afterwards (this one, or the one found).
   */
  appendAnswer(threadId: string, turns: readonly ConversationTurn[], answerKey: string): Promise<StoredAnswer>;
  /** The assistant text of the exchange stored under `answerKey` in the thread (appendAnswer), or undefined. */
  answerOf(threadId: string, answerKey: string): Promise<string | undefined>;
  /** Forgets the thread (a fresh conversation starts). */
  clear(threadId: string): Promise<void>;
  /**
   * Retention: deletes up to `limit` turns appended before `cutoff`, oldest first, of any
   * thread, and returns how many (fewer than `limit`: none is left). A thread keeps its
   * later turns; `recent` never returns a deleted turn afterwards.
   */
  deleteOlderThan(cutoff: Date, limit: number): Promise<number>;
}
