import { defineEntity, p } from '@mikro-orm/core';
/** Mapping of `trigger_lanes`: each limited trigger's run counter (Migration20261126110000_trigger_lanes). */
export const TriggerLaneEntity = defineEntity({
    name: 'TriggerLane',
    tableName: 'trigger_lanes',
    properties: {
        trigger: p.string().length(200).primary(),
        counter: p.bigint('number'),
    },
});
//# sourceMappingURL=trigger-lane-entity.js.map