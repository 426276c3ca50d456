import { raw } from '@mikro-orm/core';
import { storableText } from '../../domain/text/storable-text.js';
import { TriggerLaneEntity } from './entities/trigger-lane-entity.js';
/**
 * `trigger_lanes` through MikroORM: one `insert … on conflict do update … returning` per call,
 * whose row lock orders calls made at once on any replica (PGlite or PostgreSQL alike).
 */
export class MikroOrmTriggerLanes {
    db;
    constructor(db) {
        this.db = db;
    }
    async next(trigger) {
        const rows = await this.db.orm.em
            .fork()
            .createQueryBuilder(TriggerLaneEntity)
            .insert({ trigger: storableText(trigger), counter: 0 })
            .onConflict('trigger')
            .merge({ counter: raw('trigger_lanes.counter + 1') })
            .returning('counter')
            .execute('all', false);
        return Number(rows[0].counter);
    }
}
//# sourceMappingURL=mikro-orm-trigger-lanes.js.map