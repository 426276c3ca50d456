import { storableText } from '../../domain/text/storable-text.js';
import type { InboundRequest, InboundRequestFilter, InboundRequestStore } from '../../ports/inbound-request-store.js';
import type { Database } from './database.js';
import { InboundRequestEntity } from './entities/inbound-request-entity.js';
import { GroupCommit } from '../shared/group-commit.js';
import { isUuid } from '../../domain/ids/is-uuid.js';

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
  readonly #writes: GroupCommit<InboundRequest, boolean>;

  constructor(private readonly db: Database) {
    this.#writes = new GroupCommit((requests) => this.#insert(requests), {
      maxItems: MAX_WRITE,
      key: (request) => request.id,
    });
  }

  record(request: InboundRequest): Promise<boolean> {
    return this.#writes.add(request);
  }

  /**
   * The rows as one JSON bind parameter that the database turns into rows: the ORM's insert
   * builder converted and quoted every value of every row in JavaScript, 12 % of the main thread
   * under matched-webhook load (peer bench, PostgreSQL, `--cpu-prof`). The JSON goes to the
   * database as a bind parameter (Database.run), not quoted into the SQL text as the ORM's
   * `execute` would.
   */
  async #insert(requests: readonly InboundRequest[]): Promise<boolean[]> {
    const rows = requests.map((request) => ({
      id: request.id,
      watch_path: storableText(request.watchPath),
      received_at: request.receivedAt.toISOString(),
      triggers: request.triggers.map(storableText),
      request: storableText(request.request),
      runs: request.runs.map((run) => ({ trigger: storableText(run.trigger), runId: run.runId })),
      replay_of: request.replayOf,
    }));
    const stored = await this.db.run<{ id: string }>(
      `insert into inbound_requests (id, watch_path, received_at, triggers, request, runs, replay_of, dispatched)
       select r.id, r.watch_path, r.received_at, r.triggers, r.request, r.runs, r.replay_of, jsonb_array_length(r.runs) = 0
       from jsonb_to_recordset($1::jsonb)
         as r(id uuid, watch_path text, received_at timestamptz, triggers jsonb, request text, runs jsonb, replay_of uuid)
       on conflict (id) do nothing
       returning id`,
      [JSON.stringify(rows)],
    );
    // Ids as the database writes them (lower case), as a UUID made here is.
    const inserted = new Set(stored.map((row) => row.id));
    return requests.map((request) => inserted.has(request.id.toLowerCase()));
  }

  async undispatched(before: Date, limit: number): Promise<InboundRequest[]> {
    const rows = await this.db.orm.em
      .fork()
      .createQueryBuilder(InboundRequestEntity)
      .select(['id', 'watchPath', 'receivedAt', 'triggers', 'runs', 'replayOf'])
      .where({ dispatched: false, receivedAt: { $lt: before } })
      .orderBy({ receivedAt: 'asc', id: 'asc' })
      .limit(Math.max(Math.trunc(limit), 1))
      .getResultList();
    return rows.map((row) => toRequest(row, ''));
  }

  async markDispatched(ids: readonly string[]): Promise<void> {
    const stored = ids.filter(isUuid);
    if (stored.length === 0) return;
    // One statement for the whole batch, the ids as one bind parameter.
    await this.db.run('update inbound_requests set dispatched = true where id in (select value::uuid from jsonb_array_elements_text($1::jsonb))', [
      JSON.stringify(stored),
    ]);
  }

  async countUndispatched(): Promise<number> {
    return this.db.orm.em.fork().count(InboundRequestEntity, { dispatched: false });
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
    // Keyset paging on the list's order: the pair compared as one (the received_at index serves it).
    if (filter.before !== undefined && filter.beforeId !== undefined) {
      if (!isUuid(filter.beforeId)) return [];
      query.andWhere('(received_at, id) < (?::timestamptz, ?::uuid)', [filter.before.toISOString(), filter.beforeId]);
    } else if (filter.before !== undefined) query.andWhere({ receivedAt: { $lt: filter.before } });
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
      .where({ receivedAt: { $lt: cutoff }, dispatched: true })
      // A request an approval still waits on, or one approved whose run may still be queued, is
      // kept: the run reads it when it goes on (it would record "not stored" and not run).
      .andWhere("not exists (select 1 from approvals a where a.request_id = old.id and a.status in ('pending', 'approved'))")
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
