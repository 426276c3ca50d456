import type { Approval, ApprovalStatus } from '../../domain/approvals/approval.js';
import { storableText } from '../../domain/text/storable-text.js';
import type { ApprovalStore } from '../../ports/approval-store.js';
import type { Database } from './database.js';
import { ApprovalEntity } from './entities/approval-entity.js';
import { isUuid } from '../../domain/ids/is-uuid.js';

type Row = InstanceType<typeof ApprovalEntity.class>;

const toApproval = (row: Row): Approval => ({
  id: row.id,
  runId: row.runId,
  trigger: row.trigger,
  actionIndex: row.actionIndex,
  actionType: row.actionType as Approval['actionType'],
  summary: row.summary,
  requestId: row.requestId ?? null,
  watchPath: row.watchPath,
  firedAt: row.firedAt,
  status: row.status as ApprovalStatus,
  createdAt: row.createdAt,
  expiresAt: row.expiresAt,
  decidedBy: row.decidedBy ?? null,
  decidedAt: row.decidedAt ?? null,
});

/** `approvals` through MikroORM (PGlite or PostgreSQL alike); decisions are one conditional update each. */
export class MikroOrmApprovalStore implements ApprovalStore {
  constructor(private readonly db: Database) {}

  async request(approval: Approval): Promise<Approval> {
    const em = this.db.orm.em.fork();
    await em
      .createQueryBuilder(ApprovalEntity)
      .insert({ ...approval, trigger: storableText(approval.trigger), summary: storableText(approval.summary), watchPath: storableText(approval.watchPath) })
      .onConflict(['runId', 'actionIndex'])
      .ignore()
      .execute('run');
    const stored = await em.findOneOrFail(ApprovalEntity, { runId: approval.runId, actionIndex: approval.actionIndex });
    return toApproval(stored);
  }

  async decide(id: string, decision: 'approved' | 'denied', by: string, now: Date): Promise<Approval | null> {
    if (!isUuid(id)) return null;
    const rows: Row[] = await this.db.orm.em
      .fork()
      .createQueryBuilder(ApprovalEntity)
      .update({ status: decision, decidedBy: storableText(by).slice(0, 200), decidedAt: now })
      .where({ id, status: 'pending', expiresAt: { $gt: now } })
      .returning('*')
      .execute('all', true);
    return rows.length === 0 ? null : toApproval(rows[0]);
  }

  async expireDue(now: Date, limit: number): Promise<Approval[]> {
    const em = this.db.orm.em.fork();
    const due = em
      .createQueryBuilder(ApprovalEntity, 'due')
      .select('id')
      .where({ status: 'pending', expiresAt: { $lte: now } })
      .limit(limit)
      .getNativeQuery();
    const rows: Row[] = await em
      .createQueryBuilder(ApprovalEntity)
      .update({ status: 'expired' })
      .where({ id: { $in: due }, status: 'pending' })
      .returning('*')
      .execute('all', true);
    return rows.map(toApproval);
  }

  async find(id: string): Promise<Approval | null> {
    if (!isUuid(id)) return null;
    const row = await this.db.orm.em.fork().findOne(ApprovalEntity, { id });
    return row === null ? null : toApproval(row);
  }

  async list(filter: { readonly status?: ApprovalStatus; readonly limit: number }): Promise<Approval[]> {
    const rows = await this.db.orm.em
      .fork()
      .find(ApprovalEntity, filter.status === undefined ? {} : { status: filter.status }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: filter.limit });
    return rows.map(toApproval);
  }

  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const em = this.db.orm.em.fork();
    const old = em
      .createQueryBuilder(ApprovalEntity, 'old')
      .select('id')
      .where({ createdAt: { $lt: cutoff }, status: { $ne: 'pending' } })
      .orderBy({ createdAt: 'asc' })
      .limit(limit)
      .getNativeQuery();
    return (
      await em
        .createQueryBuilder(ApprovalEntity)
        .delete({ id: { $in: old } })
        .execute('run')
    ).affectedRows;
  }
}
