import { storableText } from '../../src/domain/text/storable-text.js';
import type { ConversationStore, ConversationTurn, StoredAnswer } from '../../src/ports/conversation-store.js';

interface StoredTurn extends ConversationTurn {
  /** When it was appended (the database's clock in the real store; this process's here). */
  createdAt: Date;
  /** The answer it belongs to (appendAnswer). */
  answerKey?: string;
}

/** ConversationStore in a Map; passes the same contract suite as the database adapter. */
export class InMemoryConversationStore implements ConversationStore {
  readonly threads = new Map<string, StoredTurn[]>();

  async recent(threadId: string, limit: number): Promise<ConversationTurn[]> {
    if (limit <= 0) return [];
    return (this.threads.get(threadId) ?? []).slice(-limit).map(({ role, text }) => ({ role, text }));
  }
  async append(threadId: string, turns: readonly ConversationTurn[]): Promise<void> {
    const createdAt = new Date();
    const stored = turns.map((turn) => ({ role: turn.role, text: storableText(turn.text), createdAt }));
    this.threads.set(threadId, [...(this.threads.get(threadId) ?? []), ...stored]);
  }
  /** Atomic as the port requires: the check and the write happen in one synchronous step. */
  async appendAnswer(threadId: string, turns: readonly ConversationTurn[], answerKey: string): Promise<StoredAnswer> {
    const found = this.#answer(threadId, answerKey);
    if (found !== undefined) return { stored: false, answer: found };
    const createdAt = new Date();
    const stored = turns.map((turn) => ({ role: turn.role, text: storableText(turn.text), createdAt, answerKey }));
    this.threads.set(threadId, [...(this.threads.get(threadId) ?? []), ...stored]);
    return { stored: true, answer: stored.find((turn) => turn.role === 'assistant')?.text ?? '' };
  }
  async answerOf(threadId: string, answerKey: string): Promise<string | undefined> {
    return this.#answer(threadId, answerKey);
  }
  #answer(threadId: string, answerKey: string): string | undefined {
    return (this.threads.get(threadId) ?? []).find((turn) => turn.answerKey === answerKey && turn.role === 'assistant')?.text;
  }
  async clear(threadId: string): Promise<void> {
    this.threads.delete(threadId);
  }
  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const old = [...this.threads.values()]
      .flat()
      .filter((turn) => turn.createdAt < cutoff)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, limit);
    const doomed = new Set(old);
    for (const [threadId, turns] of this.threads) {
      const kept = turns.filter((turn) => !doomed.has(turn));
      if (kept.length === 0) this.threads.delete(threadId);
      else this.threads.set(threadId, kept);
    }
    return old.length;
  }
  /** Test hook: dates every turn of the thread at `at`, as if appended then. */
  backdate(threadId: string, at: Date): void {
    for (const turn of this.threads.get(threadId) ?? []) turn.createdAt = new Date(at);
  }
}
