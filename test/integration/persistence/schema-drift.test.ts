import { expect } from 'chai';
import { openTestDatabase, type Engine, type TestDatabase } from '../../support/databases.js';
import { describeWithPostgres } from '../../support/postgres.js';

/**
 * The entities map the tables exactly as the migrations create them: MikroORM's schema diff
 * between a migrated database and the entities is empty. A column, default, index or check
 * that differs shows here as the SQL the ORM would run to make them agree.
 */
const describeOn = (engine: Engine): void => {
  describe(`Entities against the migrated schema on ${engine}`, function () {
    this.timeout(60_000);
    let opened: TestDatabase | undefined;
    before(async () => {
      opened = await openTestDatabase(engine, 'schema-drift');
    });
    after(async () => opened?.close());

    it('differ in nothing (the schema diff is empty)', async () => {
      const diff = await opened!.database.orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false, dropTables: false });
      expect(diff.trim()).to.equal('');
    });

    it('cover every table the migrations create', async () => {
      const diff = await opened!.database.orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false, dropTables: true });
      expect(diff.split('\n').filter((line) => /drop table/i.test(line) && !/mikro_orm_migrations/.test(line))).to.deep.equal([]);
    });
  });
};

describeOn('pglite');
describeWithPostgres('Entities on PostgreSQL', () => describeOn('postgresql'));
