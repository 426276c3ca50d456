import { raw } from '@mikro-orm/core';
import { storableJson } from '../../domain/text/storable-json.js';
import { storableText } from '../../domain/text/storable-text.js';
import type { ActionRun } from '../../domain/triggers/action-run.js';
import type { ActionRunRepository } from '../../ports/action-run-repository.js';
import type { Database } from './database.js';
import { ActionRunEntity } from './entities/action-run-entity.js';
import { GroupCommit } from '../shared/group-commit.js';
import { isUuid } from '../../domain/ids/is-uuid.js';

/** Most records one upsert carries. */
const MAX_WRITE = 200;

type Row = InstanceType<typeof ActionRunEntity.class>;

const toRun = (row: Row): ActionRun => ({
  runId: row.runId,
  trigger: row.trigger,
  actionIndex: row.actionIndex,
  type: row.type as ActionRun['type'],
  status: row.status as ActionRun['status'],
  attempts: row.attempts,
  startedAt: row.startedAt,
  finishedAt: row.finishedAt,
  error: row.error ?? null,
  detail: row.detail,
});

/** A record as the database can store it (see the port). */
const storableRow = (run: ActionRun) => ({ ...run, error: run.error === null ? undefined : storableText(run.error), detail: storableJson({ ...run.detail }) });

export class MikroOrmActionRunRepository implements ActionRunRepository {
  /** Records saved at the same time (many trigger runs at once) share one upsert (GroupCommit). */
  readonly #saves: GroupCommit<ActionRun, undefined>;
  /** Actions starting at the same time share one insert (`start`). */
  readonly #starts: GroupCommit<ActionRun, boolean>;

  constructor(private readonly db: Database) {
    const key = (run: ActionRun): string => `${run.runId}#${run.actionIndex}`;
    this.#saves = new GroupCommit((runs) => this.#upsert(runs), { maxItems: MAX_WRITE, key });
    // Two starts of one action never share an insert (the key): each is told its own outcome.
    this.#starts = new GroupCommit((runs) => this.#insertStarts(runs), { maxItems: MAX_WRITE, key });
  }

  save(run: ActionRun): Promise<void> {
    return this.#saves.add(run);
  }

  /**
   * Saves one action's start when its record is as read (see the port): for no record, an insert
   * that does nothing on a conflict, grouped with the other starts of the moment (GroupCommit);
   * for one, an update conditional on its status and finishing time. Either way the database
   * decides, so of two processes starting the action at once one is told it lost.
   */
  start(run: ActionRun, expected: ActionRun | undefined): Promise<boolean> {
    if (expected === undefined) return this.#starts.add(run);
    return this.#startOver(run, expected);
  }

  /** One insert of new starts; a start whose action has a record already (a conflict) is not stored. */
  async #insertStarts(runs: readonly ActionRun[]): Promise<boolean[]> {
    const rows: Array<{ runId: string; actionIndex: number }> = await this.db.orm.em
      .fork()
      .createQueryBuilder(ActionRunEntity)
      .insert(runs.map(storableRow))
      .onConflict(['runId', 'actionIndex'])
      .ignore()
      .returning(['runId', 'actionIndex'])
      .execute('all', true);
    const stored = new Set(rows.map((row) => `${row.runId}#${row.actionIndex}`));
    return runs.map((run) => stored.has(`${run.runId}#${run.actionIndex}`));
  }

  async #startOver(run: ActionRun, expected: ActionRun): Promise<boolean> {
    const { runId, actionIndex, ...fields } = storableRow(run);
    const result = await this.db.orm.em
      .fork()
      .createQueryBuilder(ActionRunEntity)
      .update({ ...fields, error: fields.error ?? null })
      .where({ runId, actionIndex, status: expected.status, finishedAt: expected.finishedAt })
      .execute('run');
    return result.affectedRows === 1;
  }

  /** One upsert; of two records of one action in it, the later one is kept (as two saves would). */
  async #upsert(runs: readonly ActionRun[]): Promise<undefined[]> {
    const latest = new Map(runs.map((run) => [`${run.runId}#${run.actionIndex}`, run]));
    await this.db.orm.em.fork().upsertMany(ActionRunEntity, [...latest.values()].map(storableRow));
    return runs.map(() => undefined);
  }

  async forRun(runId: string): Promise<ActionRun[]> {
    if (!isUuid(runId)) return [];
    const rows = await this.db.orm.em.fork().find(ActionRunEntity, { runId }, { orderBy: { actionIndex: 'asc' } });
    return rows.map(toRun);
  }

  async countByStatus(): Promise<Record<string, number>> {
    const rows: Array<{ status: string; count: string | number }> = await this.db.orm.em
      .fork()
      .createQueryBuilder(ActionRunEntity)
      .select(['status', raw('count(*) as count')])
      .groupBy('status')
      .execute('all', false);
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
  }

  /**
   * By trigger run (the key has two columns): the runs of the `limit` oldest records of runs that
   * are over — none of their records later than the cutoff, running or awaiting approval (the
   * run reads them to skip what it did) —, walked through the finished_at index, each run's
   * records found by the primary key.
   */
  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const deleted = await this.db.run<{ run_id: string }>(
      `with over as (
         select distinct old.run_id from (
           select o.run_id from action_runs o
           where o.finished_at < $1
             and not exists (
               select 1 from action_runs later
               where later.run_id = o.run_id
                 and (later.finished_at >= $1 or later.status in ('running', 'awaiting_approval')))
           order by o.finished_at
           limit $2) old)
       delete from action_runs a using over where a.run_id = over.run_id
       returning a.run_id`,
      [cutoff.toISOString(), limit],
    );
    return deleted.length;
  }

  async recent(limit: number): Promise<ActionRun[]> {
    const rows = await this.db.orm.em.fork().find(ActionRunEntity, {}, { orderBy: { finishedAt: 'desc' }, limit });
    return rows.map(toRun);
  }
}
