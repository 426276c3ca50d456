import { createHash } from 'node:crypto';
import type { DeliveryLog, DeliveryRecord } from '../../ports/delivery-log.js';
import type { Database } from './database.js';
import { CodehostDeliveryEntity } from './entities/codehost-delivery-entity.js';
import { GroupCommit } from '../shared/group-commit.js';

interface Delivery {
  readonly deliveryId: string;
  readonly event: string;
  /** A code-host delivery's body digest; none for a chat update. */
  readonly bodySha256?: string;
}

/** A delivery not stored whose conflicting row was forgotten before it could be read: recorded again. */
type Recorded = DeliveryRecord | 'gone';

/** Most deliveries one insert carries. */
const MAX_WRITE = 500;

/**
 * Accepted deliveries in `codehost_deliveries`: the primary key (the delivery id) and the unique
 * `body_sha256` make the first recording win, on any replica.
 */
export class MikroOrmDeliveryLog implements DeliveryLog {
  /** Deliveries arriving at the same time are recorded by one insert (GroupCommit). */
  readonly #records: GroupCommit<Delivery, Recorded>;

  constructor(private readonly db: Database) {
    this.#records = new GroupCommit((deliveries) => this.#insert(deliveries), {
      maxItems: MAX_WRITE,
      key: (delivery) => delivery.deliveryId,
    });
  }

  async recordFirst(deliveryId: string, event: string): Promise<boolean> {
    return (await this.#records.add({ deliveryId, event })) === 'first';
  }

  async recordDelivery(deliveryId: string, event: string, body: Buffer): Promise<DeliveryRecord> {
    const bodySha256 = createHash('sha256').update(body).digest('hex');
    const recorded = await this.#records.add({ deliveryId, event, bodySha256 });
    if (recorded !== 'gone') return recorded;
    // The row it met was forgotten meanwhile (its first delivery failed): recorded anew.
    const again = await this.#records.add({ deliveryId, event, bodySha256 });
    return again === 'gone' ? 'repeat' : again;
  }

  /**
   * One insert (a conflict on the id or on the body skips the row, also against a row earlier in
   * the same insert), then, for the code-host deliveries it did not store, one read of the rows
   * they met: the same id with the same body (or none recorded) is a redelivery, any other a repeat.
   */
  async #insert(deliveries: readonly Delivery[]): Promise<Recorded[]> {
    const em = this.db.orm.em.fork();
    const rows: { delivery_id: string }[] = await em
      .createQueryBuilder(CodehostDeliveryEntity)
      .insert(deliveries.map(({ deliveryId, event, bodySha256 }) => ({ deliveryId, event, bodySha256: bodySha256 ?? null })))
      .onConflict()
      .ignore()
      .returning(['deliveryId'])
      .execute('all', false);
    const stored = new Set(rows.map((row) => row.delivery_id));
    const firsts = deliveries.map((delivery) => stored.delete(delivery.deliveryId));
    const met = deliveries.filter((delivery, i) => !firsts[i] && delivery.bodySha256 !== undefined);
    const existing: { delivery_id: string; body_sha256: string | null }[] =
      met.length === 0
        ? []
        : await em
            .createQueryBuilder(CodehostDeliveryEntity)
            .select(['deliveryId', 'bodySha256'])
            .where({
              $or: [
                { deliveryId: { $in: met.map((delivery) => delivery.deliveryId) } },
                { bodySha256: { $in: met.map((delivery) => delivery.bodySha256 as string) } },
              ],
            })
            .execute('all', false);
    const bodyOf = new Map(existing.map((row) => [row.delivery_id, row.body_sha256]));
    const bodies = new Set(bodyOf.values());
    return deliveries.map((delivery, i): Recorded => {
      if (firsts[i]) return 'first';
      if (delivery.bodySha256 === undefined) return 'redelivery';
      if (bodyOf.has(delivery.deliveryId)) {
        const body = bodyOf.get(delivery.deliveryId);
        return body === null || body === delivery.bodySha256 ? 'redelivery' : 'repeat';
      }
      return bodies.has(delivery.bodySha256) ? 'repeat' : 'gone';
    });
  }

  async recordedMoreThan(deliveryId: string, ageMs: number): Promise<boolean> {
    const rows = (await this.db.orm.em
      .getConnection()
      .execute("select 1 from codehost_deliveries where delivery_id = ? and received_at < now() - ? * interval '1 millisecond'", [
        deliveryId,
        ageMs,
      ])) as unknown[];
    return rows.length > 0;
  }

  async recorded(deliveryId: string): Promise<boolean> {
    const rows = (await this.db.orm.em.getConnection().execute('select 1 from codehost_deliveries where delivery_id = ?', [deliveryId])) as unknown[];
    return rows.length > 0;
  }

  async forget(deliveryId: string): Promise<void> {
    await this.db.orm.em.fork().nativeDelete(CodehostDeliveryEntity, { deliveryId });
  }

  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const em = this.db.orm.em.fork();
    const oldest = em
      .createQueryBuilder(CodehostDeliveryEntity, 'old')
      .select('deliveryId')
      .where({ receivedAt: { $lt: cutoff } })
      .orderBy({ receivedAt: 'asc' })
      .limit(limit)
      .getNativeQuery();
    return (
      await em
        .createQueryBuilder(CodehostDeliveryEntity)
        .delete({ deliveryId: { $in: oldest } })
        .execute('run')
    ).affectedRows;
  }
}
