import { sql } from '@mikro-orm/core';
import { storableText } from '../../domain/text/storable-text.js';
import type { ConversationStore, ConversationTurn } from '../../ports/conversation-store.js';
import type { Database } from './database.js';
import { ChatTurnEntity } from './entities/chat-turn-entity.js';

/** Chat memory in `chat_turns`: one row per turn, read newest first by an index per thread. */
export class MikroOrmConversationStore implements ConversationStore {
  constructor(private readonly db: Database) {}

  async recent(threadId: string, limit: number): Promise<ConversationTurn[]> {
    // Plain rows, no entities: this runs for every chat message.
    const rows: Array<{ role: ConversationTurn['role']; text: string }> = await this.db.orm.em
      .fork()
      .createQueryBuilder(ChatTurnEntity)
      .select(['role', 'text'])
      .where({ threadId })
      .orderBy({ id: 'desc' })
      .limit(limit)
      .execute('all', false);
    return rows.reverse().map((row) => ({ role: row.role, text: row.text }));
  }

  /** One statement for all the turns: stored together or not at all, in order (ids ascend with the rows). */
  async append(threadId: string, turns: readonly ConversationTurn[]): Promise<void> {
    if (turns.length === 0) return;
    await this.db.orm.em.fork().insertMany(
      ChatTurnEntity,
      turns.map((turn) => ({ threadId, role: turn.role, text: storableText(turn.text) })),
    );
  }

  async clear(threadId: string): Promise<void> {
    await this.db.orm.em.fork().nativeDelete(ChatTurnEntity, { threadId });
  }

  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const em = this.db.orm.em.fork();
    const oldest = em
      .createQueryBuilder(ChatTurnEntity, 'old')
      .select('id')
      .where({ createdAt: { $lt: cutoff } })
      .orderBy({ createdAt: 'asc' })
      .limit(limit)
      .getNativeQuery();
    // The key as a column reference: on the bigint id the ORM would convert the sub-query like a value.
    return (
      await em
        .createQueryBuilder(ChatTurnEntity)
        .delete({ [sql.ref('id')]: { $in: oldest } })
        .execute('run')
    ).affectedRows;
  }
}
