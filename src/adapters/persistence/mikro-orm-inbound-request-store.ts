import { storableText } from '../../domain/text/storable-text.js';
import type { InboundRequest, InboundRequestStore } from '../../ports/inbound-request-store.js';
import type { Database } from './database.js';
import { InboundRequestEntity } from './entities/inbound-request-entity.js';
import { isUuid } from './is-uuid.js';

/** `inbound_requests` through MikroORM (PGlite or PostgreSQL alike). */
export class MikroOrmInboundRequestStore implements InboundRequestStore {
  constructor(private readonly db: Database) {}

  async record(request: InboundRequest): Promise<void> {
    await this.db.orm.em
      .fork()
      .createQueryBuilder(InboundRequestEntity)
      .insert({
        id: request.id,
        watchPath: storableText(request.watchPath),
        receivedAt: request.receivedAt,
        triggers: request.triggers.map(storableText),
        request: storableText(request.request),
      })
      .onConflict('id')
      .ignore()
      .execute('run');
  }

  async find(id: string): Promise<InboundRequest | null> {
    // Ids are UUIDs; anything else cannot be stored, and must not become a database error.
    if (!isUuid(id)) return null;
    const row = await this.db.orm.em.fork().findOne(InboundRequestEntity, { id });
    if (row === null) return null;
    return { id: row.id, watchPath: row.watchPath, receivedAt: row.receivedAt, request: row.request, triggers: row.triggers };
  }

  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const em = this.db.orm.em.fork();
    const oldest = em
      .createQueryBuilder(InboundRequestEntity, 'old')
      .select('id')
      .where({ receivedAt: { $lt: cutoff } })
      .orderBy({ receivedAt: 'asc' })
      .limit(limit)
      .getNativeQuery();
    return (
      await em
        .createQueryBuilder(InboundRequestEntity)
        .delete({ id: { $in: oldest } })
        .execute('run')
    ).affectedRows;
  }
}
