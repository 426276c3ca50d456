import { CodehostDeliveryEntity } from './entities/codehost-delivery-entity.js';
import { GroupCommit } from '../shared/group-commit.js';
/** Most deliveries one insert carries. */
const MAX_WRITE = 500;
/** Accepted deliveries in `codehost_deliveries`: the primary key makes the first recording win, on any replica. */
export class MikroOrmDeliveryLog {
    db;
    /** Deliveries arriving at the same time are recorded by one insert (GroupCommit). */
    #records;
    constructor(db) {
        this.db = db;
        this.#records = new GroupCommit((deliveries) => this.#insert(deliveries), {
            maxItems: MAX_WRITE,
            key: (delivery) => delivery.deliveryId,
        });
    }
    recordFirst(deliveryId, event) {
        return this.#records.add({ deliveryId, event });
    }
    /** One insert; true for each delivery it stored, false for an id stored before or earlier in the same insert. */
    async #insert(deliveries) {
        const rows = await this.db.orm.em
            .fork()
            .createQueryBuilder(CodehostDeliveryEntity)
            .insert(deliveries.map(({ deliveryId, event }) => ({ deliveryId, event })))
            .onConflict('deliveryId')
            .ignore()
            .returning(['deliveryId'])
            .execute('all', false);
        const stored = new Set(rows.map((row) => row.delivery_id));
        return deliveries.map((delivery) => stored.delete(delivery.deliveryId));
    }
    async forget(deliveryId) {
        await this.db.orm.em.fork().nativeDelete(CodehostDeliveryEntity, { deliveryId });
    }
    async deleteOlderThan(cutoff, limit) {
        const em = this.db.orm.em.fork();
        const oldest = em
            .createQueryBuilder(CodehostDeliveryEntity, 'old')
            .select('deliveryId')
            .where({ receivedAt: { $lt: cutoff } })
            .orderBy({ receivedAt: 'asc' })
            .limit(limit)
            .getNativeQuery();
        return (await em
            .createQueryBuilder(CodehostDeliveryEntity)
            .delete({ deliveryId: { $in: oldest } })
            .execute('run')).affectedRows;
    }
}
//# sourceMappingURL=mikro-orm-delivery-log.js.map