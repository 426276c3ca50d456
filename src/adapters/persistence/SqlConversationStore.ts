import { storableText } from '../../domain/text/storableText.js';
import type { ConversationStore, ConversationTurn } from '../../ports/ConversationStore.js';
import type { Database } from './Database.js';

/** Chat memory in `chat_turns`: one row per turn, read newest first by an index per thread. */
export class SqlConversationStore implements ConversationStore {
  constructor(private readonly db: Database) {}

  async recent(threadId: string, limit: number): Promise<ConversationTurn[]> {
    const rows = await this.db.execute<{ role: 'user' | 'assistant'; text: string }>(
      'select role, text from chat_turns where thread_id = ? order by id desc limit ?',
      [threadId, limit],
    );
    return rows.reverse().map((row) => ({ role: row.role, text: row.text }));
  }

  /** One statement for all the turns: stored together or not at all, in order (ids ascend with the rows). */
  async append(threadId: string, turns: readonly ConversationTurn[]): Promise<void> {
    if (turns.length === 0) return;
    await this.db.execute(
      `insert into chat_turns (thread_id, role, text) values ${turns.map(() => '(?, ?, ?)').join(', ')}`,
      turns.flatMap((turn) => [threadId, turn.role, storableText(turn.text)]),
    );
  }

  async clear(threadId: string): Promise<void> {
    await this.db.execute('delete from chat_turns where thread_id = ?', [threadId]);
  }
}
