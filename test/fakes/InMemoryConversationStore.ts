import type { ConversationStore, ConversationTurn } from '../../src/ports/ConversationStore.js';

export class InMemoryConversationStore implements ConversationStore {
  readonly threads = new Map<string, ConversationTurn[]>();
  async recent(threadId: string, limit: number): Promise<ConversationTurn[]> {
    return (this.threads.get(threadId) ?? []).slice(-limit);
  }
  async append(threadId: string, turns: readonly ConversationTurn[]): Promise<void> {
    this.threads.set(threadId, [...(this.threads.get(threadId) ?? []), ...turns]);
  }
  async clear(threadId: string): Promise<void> {
    this.threads.delete(threadId);
  }
}
