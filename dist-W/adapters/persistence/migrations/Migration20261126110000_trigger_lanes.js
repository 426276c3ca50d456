import { Migration } from '@mikro-orm/migrations';
/** A run counter per trigger with `concurrency`: its runs are dealt round robin to its lanes. */
export class Migration20261126110000_trigger_lanes extends Migration {
    name = 'Migration20261126110000_trigger_lanes';
    up() {
        this.addSql('create table trigger_lanes (trigger varchar(200) primary key, counter bigint not null)');
    }
    down() {
        this.addSql('drop table if exists trigger_lanes');
    }
}
//# sourceMappingURL=Migration20261126110000_trigger_lanes.js.map