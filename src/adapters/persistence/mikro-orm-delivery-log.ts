import type { DeliveryLog } from '../../ports/delivery-log.js';
import type { Database } from './database.js';
import { CodehostDeliveryEntity } from './entities/codehost-delivery-entity.js';

/** Accepted deliveries in `codehost_deliveries`: the primary key makes the first recording win, on any replica. */
export class MikroOrmDeliveryLog implements DeliveryLog {
  constructor(private readonly db: Database) {}

  async recordFirst(deliveryId: string, event: string): Promise<boolean> {
    const result = await this.db.orm.em
      .fork()
      .createQueryBuilder(CodehostDeliveryEntity)
      .insert({ deliveryId, event })
      .onConflict('deliveryId')
      .ignore()
      .execute('run');
    return result.affectedRows === 1;
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
