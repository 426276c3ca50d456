import { expect } from 'chai';
import { createPino, PinoLogger } from '../../../src/adapters/logging/pino-logger.js';
import { Database } from '../../../src/adapters/persistence/database.js';
import { MIGRATIONS } from '../../../src/adapters/persistence/migrations/index.js';
import { tempDir } from '../../support/gateway-process.js';
import { createScratchDatabase, postgres, type ScratchDatabase } from '../../support/postgres.js';
import { sql } from '../../support/databases.js';

const logger = new PinoLogger(createPino('silent'));
const ALL = MIGRATIONS.map((migration) => migration.name);
/** A released migration whose effect (one table) is easy to undo. */
const ADMIN = 'Migration20261123040000_admin';

const engines: Array<{ name: string; available: boolean; reason: string; open(): Promise<{ open(): Promise<Database>; cleanup(): Promise<void> }> }> = [
  {
    name: 'PGlite',
    available: true,
    reason: '',
    open: async () => {
      const dataDir = await tempDir('migrate');
      return { open: () => Database.open({ databaseUrl: undefined, dataDir, logger }), cleanup: async () => undefined };
    },
  },
  {
    name: 'PostgreSQL',
    available: postgres.available,
    reason: postgres.reason,
    open: async () => {
      const scratch: ScratchDatabase = await createScratchDatabase();
      const dataDir = await tempDir('migrate-pg');
      return { open: () => Database.open({ databaseUrl: scratch.url, dataDir, logger }), cleanup: () => scratch.drop() };
    },
  },
];

for (const engine of engines) {
  (engine.available ? describe : describe.skip)(`Database.migrate on ${engine.name}${engine.available ? '' : ` — pending: ${engine.reason}`}`, function () {
    this.timeout(60_000);
    let target: { open(): Promise<Database>; cleanup(): Promise<void> };
    let database: Database | undefined;
    beforeEach(async () => {
      target = await engine.open();
    });
    afterEach(async () => {
      await database?.close();
      database = undefined;
      await target.cleanup();
    });

    it('applies every migration to a new database, then none on the next start', async () => {
      database = await target.open();
      expect(await database.migrate()).to.deep.equal(ALL);
      await database.close();
      database = await target.open();
      expect(await database.migrate()).to.deep.equal([]);
    });

    it('applies a migration that is not recorded yet (an upgrade), and only that one', async () => {
      database = await target.open();
      await database.migrate();
      // As if the database predated the admin migration.
      await sql(database, 'drop table admin_sessions');
      await sql(database, 'delete from mikro_orm_migrations where name = ?', [ADMIN]);
      await database.close();
      database = await target.open();
      expect(await database.migrate()).to.deep.equal([ADMIN]);
      expect(await sql(database, 'select count(*)::int as n from admin_sessions')).to.deep.equal([{ n: 0 }]);
    });
  });
}

(postgres.available ? describe : describe.skip)(
  `Database.migrate on PostgreSQL, several processes at once${postgres.available ? '' : ` — pending: ${postgres.reason}`}`,
  function () {
    this.timeout(60_000);

    it('applies each migration once when three processes start on a new database at once, none failing', async () => {
      const scratch = await createScratchDatabase();
      const dataDir = await tempDir('migrate-race');
      const databases = await Promise.all([1, 2, 3].map(() => Database.open({ databaseUrl: scratch.url, dataDir, logger })));
      try {
        const applied = await Promise.all(databases.map((database) => database.migrate()));
        // One of them applied them all; the others found them applied.
        expect(applied.map((names) => names.length).sort((a, b) => a - b)).to.deep.equal([0, 0, ALL.length]);
        expect(await databases[0].recordedMigrations()).to.deep.equal(ALL);
      } finally {
        await Promise.all(databases.map((database) => database.close()));
        await scratch.drop();
      }
    });
  },
);
