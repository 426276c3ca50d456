import { sql } from '@mikro-orm/core';
import { storableText } from '../../domain/text/storable-text.js';
import { ChatTurnEntity } from './entities/chat-turn-entity.js';
import { GroupCommit } from '../shared/group-commit.js';
/** Most appends one insert carries. */
const MAX_WRITE = 200;
/** Chat memory in `chat_turns`: one row per turn, read newest first by an index per thread. */
export class MikroOrmConversationStore {
    db;
    /** Turns of chats appended at the same time share one insert (GroupCommit). */
    #appends;
    constructor(db) {
        this.db = db;
        this.#appends = new GroupCommit((appends) => this.#insert(appends), {
            maxItems: MAX_WRITE,
            key: (append) => append.threadId,
        });
    }
    async recent(threadId, limit) {
        // Plain rows, no entities: this runs for every chat message.
        const rows = await this.db.orm.em
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
    async append(threadId, turns) {
        if (turns.length === 0)
            return;
        await this.#appends.add({ threadId, turns });
    }
    async #insert(appends) {
        await this.db.orm.em.fork().insertMany(ChatTurnEntity, appends.flatMap(({ threadId, turns }) => turns.map((turn) => ({ threadId, role: turn.role, text: storableText(turn.text) }))));
        return appends.map(() => undefined);
    }
    async clear(threadId) {
        await this.db.orm.em.fork().nativeDelete(ChatTurnEntity, { threadId });
    }
    async deleteOlderThan(cutoff, limit) {
        const em = this.db.orm.em.fork();
        const oldest = em
            .createQueryBuilder(ChatTurnEntity, 'old')
            .select('id')
            .where({ createdAt: { $lt: cutoff } })
            .orderBy({ createdAt: 'asc' })
            .limit(limit)
            .getNativeQuery();
        // The key as a column reference: on the bigint id the ORM would convert the sub-query like a value.
        return (await em
            .createQueryBuilder(ChatTurnEntity)
            .delete({ [sql.ref('id')]: { $in: oldest } })
            .execute('run')).affectedRows;
    }
}
//# sourceMappingURL=mikro-orm-conversation-store.js.map