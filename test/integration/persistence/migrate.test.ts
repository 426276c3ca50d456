import { expect } from 'chai';
import { createPino, PinoLogger } from '../../../src/adapters/logging/pino-logger.js';
import { Database } from '../../../src/adapters/persistence/database.js';
import { MIGRATIONS } from '../../../src/adapters/persistence/migrations/index.js';
import { dirname } from 'node:path';
import { tempDir } from '../../support/gateway-process.js';
import { emptyPgliteDir } from '../../support/data-dirs.js';
import { createScratchDatabase, postgres, type ScratchDatabase } from '../../support/postgres.js';
import { migratedPgliteDataDir, sql } from '../../support/databases.js';
import { MikroOrmJobRepository } from '../../../src/adapters/persistence/mikro-orm-job-repository.js';
import { MikroOrmScheduleRunRepository } from '../../../src/adapters/persistence/mikro-orm-schedule-run-repository.js';
import { MikroOrmAdminStore } from '../../../src/adapters/persistence/mikro-orm-admin-store.js';
import type { Logger } from '../../../src/ports/logger.js';

const logger = new PinoLogger(createPino('silent'));
const ALL = MIGRATIONS.map((migration) => migration.name);
/** A released migration whose effect (one table) is easy to undo. */
const ADMIN = 'Migration20261123040000_admin';
const NOTICE_QUEUED = 'Migration20261130000000_jobs_notice_queued';
const FINGERPRINTS = 'Migration20261130300000_schedule_run_fingerprints';
const SESSION_PASSWORD = 'Migration20261201000000_admin_session_password';
/** A migration of a version newer than this one, as that version records it. */
const FUTURE = 'Migration20991231000000_of_a_newer_version';

/** A logger that keeps its warnings. */
const recordingLogger = (warnings: string[]): Logger => {
  const self: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (_fields, message) => void warnings.push(message),
    error: () => undefined,
    child: () => self,
  };
  return self;
};

/** A database of an engine (engines[].open made it new or migrated): `open` opens it as the service does. */
type Target = { open(log?: Logger): Promise<Database>; cleanup(): Promise<void> };

const engines: Array<{
  name: string;
  available: boolean;
  reason: string;
  /** A new database: no migration applied, or with `migrated` every migration (as a first start leaves it). */
  open(state?: 'migrated'): Promise<Target>;
}> = [
  {
    name: 'PGlite',
    available: true,
    reason: '',
    // Copies of the empty cluster, or of the migrated one, each made once per run (data-dirs.ts,
    // databases.ts): creating the cluster is embedded-creation.test.ts's subject, not this file's,
    // and a test of an upgrade need not apply every migration first.
    open: async (state) => {
      const dataDir = state === 'migrated' ? await migratedPgliteDataDir('migrate') : dirname(await emptyPgliteDir('migrate'));
      return { open: (log = logger) => Database.open({ databaseUrl: undefined, dataDir, logger: log }), cleanup: async () => undefined };
    },
  },
  {
    name: 'PostgreSQL',
    available: postgres.available,
    reason: postgres.reason,
    open: async (state) => {
      const scratch: ScratchDatabase = await createScratchDatabase();
      const dataDir = await tempDir('migrate-pg');
      const open = (log = logger) => Database.open({ databaseUrl: scratch.url, dataDir, logger: log });
      if (state === 'migrated') {
        const database = await open();
        try {
          expect(await database.migrate()).to.deep.equal(ALL);
        } finally {
          await database.close();
        }
      }
      return { open, cleanup: () => scratch.drop() };
    },
  },
];

for (const engine of engines) {
  (engine.available ? describe : describe.skip)(`Database.migrate on ${engine.name}${engine.available ? '' : ` — pending: ${engine.reason}`}`, function () {
    this.timeout(60_000);
    let target: Target | undefined;
    let database: Database | undefined;
    /** A new database of the engine (`migrated`: with every migration applied), opened. */
    const openTarget = async (state?: 'migrated'): Promise<Database> => {
      target = await engine.open(state);
      return target.open();
    };
    /** The database openTarget made, opened again (as by the next start). */
    const reopen = (log?: Logger): Promise<Database> => {
      if (target === undefined) throw new Error('no database was opened yet');
      return target.open(log);
    };
    afterEach(async () => {
      await database?.close();
      database = undefined;
      await target?.cleanup();
      target = undefined;
    });

    it('applies every migration to a new database, then none on the next start', async () => {
      database = await openTarget();
      expect(await database.migrate()).to.deep.equal(ALL);
      await database.close();
      database = await reopen();
      expect(await database.migrate()).to.deep.equal([]);
    });

    it(`${engine.name === 'PGlite' ? 'refuses a database migrated by a newer version, naming its migration and what to do, and writes nothing' : 'goes on with a database migrated by a newer version (a rolling upgrade), and warns'}`, async () => {
      database = await openTarget('migrated');
      expect(await database.recordedMigrations()).to.deep.equal(ALL);
      await sql(database, 'insert into mikro_orm_migrations (name) values (?)', [FUTURE]);
      await sql(database, "insert into settings (key, value, updated_at) values ('kept', 'yes', now())");
      await database.close();
      const warnings: string[] = [];
      database = await reopen(recordingLogger(warnings));
      if (engine.name === 'PGlite') {
        const error = await database.migrate().then(
          () => undefined,
          (failure: Error) => failure,
        );
        expect(error?.name).to.equal('DatabaseOpenError');
        expect(error?.message).to.match(
          new RegExp(
            `^The embedded database in .* was migrated by a newer version of agent-gateway: it records a migration this version does not have \\(${FUTURE}\\)\\. Start that version .* or restore the backup taken before the upgrade`,
          ),
        );
      } else {
        expect(await database.migrate()).to.deep.equal([]);
        expect(warnings).to.have.length(1);
        expect(warnings[0]).to.match(
          new RegExp(
            `^the database was migrated by a newer version of agent-gateway \\(it records a migration this version does not have \\(${FUTURE}\\)\\): this one runs beside it`,
          ),
        );
      }
      expect(await database.recordedMigrations()).to.deep.equal([...ALL, FUTURE]);
      expect(await sql(database, "select value from settings where key = 'kept'")).to.deep.equal([{ value: 'yes' }]);
    });

    it('says which migrations failed and that none was applied, and on PostgreSQL that the database holds tables of another application', async () => {
      database = await openTarget();
      // Another application's table, named as one of the gateway's.
      await sql(database, 'create table jobs (id serial primary key, title text)');
      await sql(database, "insert into jobs (title) values ('of another application')");
      const error = await database.migrate().then(
        () => undefined,
        (failure: Error) => failure,
      );
      expect(error?.name).to.equal('DatabaseOpenError');
      expect(error?.message).to.include(
        `Migrating the database failed, and none of its ${ALL.length} pending migrations (${ALL[0]} to ${ALL.at(-1)}) was applied: relation "jobs" already exists`,
      );
      if (engine.name === 'PostgreSQL')
        expect(error?.message).to.match(
          /: the database holds tables or other objects that agent-gateway did not create; give agent-gateway a database of its own/,
        );
      // All or nothing: the other application's table as it was, none of the gateway's.
      expect(await sql(database, 'select title from jobs')).to.deep.equal([{ title: 'of another application' }]);
      expect(await sql(database, "select count(*)::int as n from information_schema.tables where table_name = 'api_keys'")).to.deep.equal([{ n: 0 }]);
    });

    it('applies a migration that is not recorded yet (an upgrade), and only that one', async () => {
      database = await openTarget('migrated');
      expect(await database.recordedMigrations()).to.deep.equal(ALL);
      // As if the database predated the admin migration.
      await sql(database, 'drop table admin_sessions');
      await sql(database, 'delete from mikro_orm_migrations where name = ?', [ADMIN]);
      await database.close();
      database = await reopen();
      expect(await database.migrate()).to.deep.equal([ADMIN]);
      expect(await sql(database, 'select count(*)::int as n from admin_sessions')).to.deep.equal([{ n: 0 }]);
    });

    it('counts the chat jobs finished before the upgrade as notified, so that none gets its notice again; those finishing after get theirs', async () => {
      database = await openTarget('migrated');
      expect(await database.recordedMigrations()).to.deep.equal(ALL);
      // As if the database predated the notice marks, with jobs of the old version in it.
      await sql(database, 'alter table jobs drop column notice_queued_at');
      await sql(database, 'delete from mikro_orm_migrations where name = ?', [NOTICE_QUEUED]);
      const ids = { done: '31000000-0000-4000-8000-000000000001', running: '31000000-0000-4000-8000-000000000002' };
      for (const [id, status] of [
        [ids.done, 'succeeded'],
        [ids.running, 'running'],
      ])
        await sql(
          database,
          "insert into jobs (id, job, status, source_kind, source_ref, branch, created_at, updated_at) values (?, 'x', ?, 'chat', 'telegram:42', ?, now(), now())",
          [id, status, `job/${id}`],
        );
      await database.close();
      database = await reopen();
      expect(await database.migrate()).to.deep.equal([NOTICE_QUEUED]);
      const jobs = new MikroOrmJobRepository(database);
      const awaiting = async () => (await jobs.listAwaitingNotice({ changedBefore: new Date(Date.now() + 60_000), limit: 10 })).map((job) => job.id);
      expect(await awaiting()).to.deep.equal([]);
      await jobs.modify(ids.running, (job) => ({ ...job, status: 'failed' }));
      expect(await awaiting()).to.deep.equal([ids.running]);
    });

    it('keeps the schedule runs recorded before fingerprints, with a null (unknown) fingerprint', async () => {
      database = await openTarget('migrated');
      expect(await database.recordedMigrations()).to.deep.equal(ALL);
      // As if the database predated the fingerprints, with a run of the old version in it.
      await sql(database, 'alter table schedule_runs drop column fingerprint');
      await sql(database, 'delete from mikro_orm_migrations where name = ?', [FINGERPRINTS]);
      await sql(
        database,
        "insert into schedule_runs (schedule, occurrence, status, catch_up, updated_at) values ('nightly', '2026-03-01T03:00:00Z', 'succeeded', false, now())",
      );
      await database.close();
      database = await reopen();
      expect(await database.migrate()).to.deep.equal([FINGERPRINTS]);
      const last = (await new MikroOrmScheduleRunRepository(database).lastSeen()).get('nightly');
      expect(last).to.deep.include({ status: 'succeeded', fingerprint: null });
      expect(last?.occurrence.toISOString()).to.equal('2026-03-01T03:00:00.000Z');
    });

    it('keeps the admin password and ends the sessions made before sessions recorded their password (the admin logs in again)', async () => {
      database = await openTarget('migrated');
      expect(await database.recordedMigrations()).to.deep.equal(ALL);
      // As if the database predated the sessions' password digests, with a session of the old version in it.
      await sql(database, 'alter table admin_sessions drop column password_digest');
      await sql(database, 'delete from mikro_orm_migrations where name = ?', [SESSION_PASSWORD]);
      const hash = 'scrypt$1024$8$1$salt$kept';
      const old = 'a'.repeat(64);
      await sql(database, "insert into settings (key, value, updated_at) values ('admin.password', ?, now())", [hash]);
      await sql(database, "insert into admin_sessions (token_hash, csrf_token, expires_at) values (?, 'csrf', now() + interval '1 hour')", [old]);
      await database.close();
      database = await reopen();
      expect(await database.migrate()).to.deep.equal([SESSION_PASSWORD]);
      const store = new MikroOrmAdminStore(database);
      expect(await store.passwordHash()).to.equal(hash);
      expect(await store.session(old, new Date())).to.equal(null);
      const session = { csrfToken: 'new', expiresAt: new Date(Date.now() + 3_600_000) };
      await store.addSession('b'.repeat(64), session, hash);
      expect(await store.session('b'.repeat(64), new Date())).to.deep.equal(session);
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
