import { storableText } from '../../domain/text/storable-text.js';
import type { InboundRequest, InboundRequestFilter, InboundRequestStore } from '../../ports/inbound-request-store.js';
import type { Database } from './database.js';
import { InboundRequestEntity } from './entities/inbound-request-entity.js';
import { GroupCommit, parallelWrites } from '../shared/group-commit.js';
import { isUuid } from './is-uuid.js';

/** Most requests one insert carries (each holds a whole request, up to the body limit). */
const MAX_WRITE = 100;

interface Row {
  readonly id: string;
  readonly watchPath: string;
  readonly receivedAt: Date;
  readonly triggers: string[];
  readonly runs?: InboundRequest['runs'] | null;
  readonly replayOf?: string | null;
}

const toRequest = (row: Row, request: string): InboundRequest => ({
  id: row.id,
  watchPath: row.watchPath,
  receivedAt: row.receivedAt,
  request,
  triggers: row.triggers,
  runs: row.runs ?? [],
  replayOf: row.replayOf ?? null,
});

/** `inbound_requests` through MikroORM (PGlite or PostgreSQL alike). */
export class MikroOrmInboundRequestStore implements InboundRequestStore {
  /**
   * Requests recorded at the same time share one insert (GroupCommit): under load every fired
   * request would otherwise cost a statement and a round trip of its own.
   */
  readonly #writes: GroupCommit<InboundRequest, undefined>;

  constructor(private readonly db: Database) {
    this.#writes = new GroupCommit((requests) => this.#insert(requests), {
      parallel: parallelWrites(db.engine),
      maxItems: MAX_WRITE,
      key: (request) => request.id,
    });
  }

  record(request: InboundRequest): Promise<void> {
    return this.#writes.add(request);
  }

  async #insert(requests: readonly InboundRequest[]): Promise<undefined[]> {
    await this.db.orm.em
      .fork()
      .createQueryBuilder(InboundRequestEntity)
      .insert(
        requests.map((request) => ({
          id: request.id,
          watchPath: storableText(request.watchPath),
          receivedAt: request.receivedAt,
          triggers: request.triggers.map(storableText),
          request: storableText(request.request),
          runs: request.runs.map((run) => ({ trigger: storableText(run.trigger), runId: run.runId })),
          replayOf: request.replayOf,
        })),
      )
      .onConflict('id')
      .ignore()
      .execute('run');
    return requests.map(() => undefined);
  }

  async find(id: string): Promise<InboundRequest | null> {
    // Ids are UUIDs; anything else cannot be stored, and must not become a database error.
    if (!isUuid(id)) return null;
    const row = await this.db.orm.em.fork().findOne(InboundRequestEntity, { id });
    return row === null ? null : toRequest(row, row.request);
  }

  async list(filter: InboundRequestFilter): Promise<InboundRequest[]> {
    const em = this.db.orm.em.fork();
    const query = em
      .createQueryBuilder(InboundRequestEntity)
      .select(['id', 'watchPath', 'receivedAt', 'triggers', 'runs', 'replayOf'])
      .orderBy({ receivedAt: 'desc', id: 'desc' })
      .limit(Math.min(Math.max(Math.trunc(filter.limit), 1), 500));
    if (filter.watchPath !== undefined) query.andWhere({ watchPath: storableText(filter.watchPath) });
    if (filter.before !== undefined) query.andWhere({ receivedAt: { $lt: filter.before } });
    // jsonb containment: the fired names hold this one (a parameter, never spliced into SQL).
    if (filter.trigger !== undefined) query.andWhere('triggers @> ?::jsonb', [JSON.stringify([storableText(filter.trigger)])]);
    const rows = await query.getResultList();
    return rows.map((row) => toRequest(row, ''));
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
