import { expect } from 'chai';
import { migratedPgliteDataDir } from '../../support/databases.js';
import { NodeApiKeyCrypto } from '../../../src/adapters/crypto/node-api-key-crypto.js';
import { ScryptPasswordHasher } from '../../../src/adapters/crypto/scrypt-password-hasher.js';
import { PinoLogger, createPino } from '../../../src/adapters/logging/pino-logger.js';
import { Database } from '../../../src/adapters/persistence/database.js';
import { MikroOrmAdminStore } from '../../../src/adapters/persistence/mikro-orm-admin-store.js';
import { MikroOrmLoginAttempts } from '../../../src/adapters/persistence/mikro-orm-login-attempts.js';
import { AdminAuthentication, FAILURE_WINDOW_MS, MAX_FAILURES } from '../../../src/application/auth/admin-authentication.js';
import type { PasswordHasher } from '../../../src/ports/password-hasher.js';
import { NodeTimer } from '../../../src/adapters/system/node-timer.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';
import { tempDir } from '../../support/gateway-process.js';
import { createScratchDatabase, describeWithPostgres } from '../../support/postgres.js';
import { sql } from '../../support/databases.js';

const logger = new PinoLogger(createPino('silent'));
const PASSWORD = 'correct horse battery';

/** Counts the password checks that reach the hash, across every replica that shares it. */
class CountingHasher implements PasswordHasher {
  verified = 0;
  readonly #inner = new ScryptPasswordHasher(2 ** 10);
  hash(password: string) {
    return this.#inner.hash(password);
  }
  verify(password: string, stored: string) {
    this.verified++;
    return this.#inner.verify(password, stored);
  }
}

const outcome = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => 'ok',
    (error: { code?: string }) => error.code ?? 'error',
  );

/** Admin logins on a real database: the limit holds for parallel attempts and for replicas sharing the database. */
const describeOn = (engine: string, openReplicas: () => Promise<{ databases: [Database, Database]; dispose(): Promise<void> }>): void => {
  describe(`admin login limit on ${engine}`, function () {
    this.timeout(120_000);
    let opened: Awaited<ReturnType<typeof openReplicas>>;
    let replicas: [AdminAuthentication, AdminAuthentication];
    let hasher: CountingHasher;
    let clock: FixedClock;

    before(async () => {
      opened = await openReplicas();
      await opened.databases[0].migrate();
    });
    beforeEach(async () => {
      await sql(opened.databases[0], 'truncate admin_login_attempts');
      hasher = new CountingHasher();
      clock = new FixedClock();
      replicas = opened.databases.map(
        (db) =>
          new AdminAuthentication(
            new MikroOrmAdminStore(db),
            new MikroOrmLoginAttempts(db),
            hasher,
            new NodeApiKeyCrypto(),
            new SequentialIds(),
            clock,
            new NodeTimer(),
          ),
      ) as [AdminAuthentication, AdminAuthentication];
      await replicas[0].setPassword(PASSWORD);
    });
    after(async () => opened?.dispose());

    it('100 parallel wrong logins spread over two replicas: at most the limit reach the password check, the rest get 429', async () => {
      const outcomes = await Promise.all(Array.from({ length: 100 }, (_, i) => outcome(replicas[i % 2].login('guess', '198.51.100.7'))));
      expect(hasher.verified).to.be.at.most(MAX_FAILURES);
      expect(outcomes.filter((o) => o === 'unauthorized')).to.have.length(hasher.verified);
      expect(outcomes.filter((o) => o === 'rate_limited')).to.have.length(100 - hasher.verified);
    });

    it("a refused login writes nothing: the client's row is neither updated nor locked (xmin, xmax), on any replica", async () => {
      for (let i = 0; i < MAX_FAILURES; i++) expect(await outcome(replicas[0].login('guess', '198.51.100.9'))).to.equal('unauthorized');
      const row = async () =>
        (
          await sql<{ xmin: string; xmax: string; attempts: number }>(opened.databases[0], 'select xmin::text, xmax::text, attempts from admin_login_attempts')
        )[0];
      const before = await row();
      expect(before.attempts).to.equal(MAX_FAILURES);
      // Fresh use cases (new replicas, or a process restarted) know nothing yet: each reads the database.
      for (let i = 0; i < 10; i++) {
        const db = opened.databases[i % 2];
        const fresh = new AdminAuthentication(
          new MikroOrmAdminStore(db),
          new MikroOrmLoginAttempts(db),
          hasher,
          new NodeApiKeyCrypto(),
          new SequentialIds(),
          clock,
          new NodeTimer(),
        );
        expect(await outcome(fresh.login(PASSWORD, '198.51.100.9'))).to.equal('rate_limited');
        expect(await outcome(replicas[i % 2].login(PASSWORD, '198.51.100.9'))).to.equal('rate_limited');
      }
      expect(await row()).to.deep.equal(before);
    });

    it('failures on one replica count on the other; the correct password is refused there until the window passes', async () => {
      for (let i = 0; i < MAX_FAILURES; i++) expect(await outcome(replicas[0].login('guess', '198.51.100.8'))).to.equal('unauthorized');
      expect(await outcome(replicas[1].login(PASSWORD, '198.51.100.8'))).to.equal('rate_limited');
      clock.advance(FAILURE_WINDOW_MS);
      expect(await outcome(replicas[1].login(PASSWORD, '198.51.100.8'))).to.equal('ok');
    });
  });
};

describeOn('PGlite (one process: two use cases on the embedded database)', async () => {
  const database = await Database.open({ databaseUrl: undefined, dataDir: await migratedPgliteDataDir('login-limit'), logger });
  return { databases: [database, database], dispose: () => database.close() };
});

describeWithPostgres('admin login limit on PostgreSQL', () => {
  describeOn('PostgreSQL (two replicas: two pools on one database)', async () => {
    const scratch = await createScratchDatabase();
    const first = await Database.open({ databaseUrl: scratch.url, dataDir: await tempDir('login-limit'), logger });
    const second = await Database.open({ databaseUrl: scratch.url, dataDir: await tempDir('login-limit'), logger });
    return {
      databases: [first, second],
      dispose: async () => {
        await first.close();
        await second.close();
        await scratch.drop();
      },
    };
  });
});
