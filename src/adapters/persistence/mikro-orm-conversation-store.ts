import { sql } from '@mikro-orm/core';
import { storableText } from '../../domain/text/storable-text.js';
import type { ConversationStore, ConversationTurn, StoredAnswer } from '../../ports/conversation-store.js';
import type { Database } from './database.js';
import { ChatTurnEntity } from './entities/chat-turn-entity.js';
import { GroupCommit } from '../shared/group-commit.js';

interface Append {
  readonly threadId: string;
  readonly turns: readonly ConversationTurn[];
  /** The answer the turns are (appendAnswer): stored only when no turn of this key is. */
  readonly answerKey?: string;
}

/** Most appends one insert carries. */
const MAX_WRITE = 200;

/** Chat memory in `chat_turns`: one row per turn, read newest first by an index per thread. */
export class MikroOrmConversationStore implements ConversationStore {
  /** Turns of chats appended at the same time share one insert (GroupCommit). */
  readonly #appends: GroupCommit<Append, boolean>;

  constructor(private readonly db: Database) {
    this.#appends = new GroupCommit((appends) => this.#insert(appends), {
      maxItems: MAX_WRITE,
      key: (append) => append.threadId,
    });
  }

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

  /**
   * One statement for all the turns: stored together or not at all, in order (ids ascend with the
   * rows), with the turns other chats append at the same moment.
   */
  async append(threadId: string, turns: readonly ConversationTurn[]): Promise<void> {
    if (turns.length === 0) return;
    await this.#appends.add({ threadId, turns });
  }

  async appendAnswer(threadId: string, turns: readonly ConversationTurn[], answerKey: string): Promise<StoredAnswer> {
    const given = turns.find((turn) => turn.role === 'assistant')?.text ?? '';
    if (turns.length === 0 || (await this.#appends.add({ threadId, turns, answerKey }))) return { stored: true, answer: storableText(given) };
    // An exchange of this key is stored (an earlier attempt's): its answer is the answer.
    return { stored: false, answer: (await this.answerOf(threadId, answerKey)) ?? storableText(given) };
  }

  async answerOf(threadId: string, answerKey: string): Promise<string | undefined> {
    const rows: Array<{ text: string }> = await this.db.orm.em
      .fork()
      .createQueryBuilder(ChatTurnEntity)
      .select(['text'])
      .where({ threadId, answerKey, role: 'assistant' })
      .limit(1)
      .execute('all', false);
    return rows[0]?.text;
  }

  /**
   * One statement for every append of the batch. An answer's turns whose key is stored already
   * (the unique index on answer_key and role) are skipped, and only those: an append with a key
   * was stored when its rows came back.
   */
  async #insert(appends: readonly Append[]): Promise<boolean[]> {
    const rows: Array<{ answer_key: string | null }> = await this.db.orm.em
      .fork()
      .createQueryBuilder(ChatTurnEntity)
      .insert(
        appends.flatMap(({ threadId, turns, answerKey }) =>
          turns.map((turn) => ({ threadId, role: turn.role, text: storableText(turn.text), answerKey: answerKey ?? null })),
        ),
      )
      .onConflict()
      .ignore()
      .returning(['answerKey'])
      .execute('all', false);
    const stored = new Set(rows.map((row) => row.answer_key));
    return appends.map((append) => append.answerKey === undefined || stored.has(append.answerKey));
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
