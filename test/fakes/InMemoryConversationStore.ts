import { storableText } from '../../src/domain/text/storableText.js';
import type { ConversationStore, ConversationTurn } from '../../src/ports/ConversationStore.js';

export class InMemoryConversationStore implements ConversationStore {
  readonly threads = new Map<string, ConversationTurn[]>();
  async recent(threadId: string, limit: number): Promise<ConversationTurn[]> {
    return (this.threads.get(threadId) ?? []).slice(-limit);
  }
  async append(threadId: string, turns: readonly ConversationTurn[]): Promise<void> {
    const stored = turns.map((turn) => ({ ...turn, text: storableText(turn.text) }));
    this.threads.set(threadId, [...(this.threads.get(threadId) ?? []), ...stored]);
  }
  async clear(threadId: string): Promise<void> {
    this.threads.delete(threadId);
  }
}
