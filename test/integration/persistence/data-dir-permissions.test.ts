import { expect } from 'chai';
import { chmod, chown, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { closeEngine, openEngine } from '../../../src/adapters/persistence/open-engine.js';
import { checkPrivateDataDir, unsafeDataDirReason, UnsafeDataDir } from '../../../src/adapters/persistence/private-data-dir.js';
import { explainDatabaseFailure } from '../../../src/container/explain-database-failure.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { tempDir } from '../../support/gateway-process.js';

/*
 * A DATA_DIR other accounts can write is refused before anything is written in it: whoever can
 * write it can replace the admin socket (and receive the admin password the CLI sets), the lock
 * file or the database (private-data-dir.ts). mkdir's mode protects only a directory it creates.
 */

const isRoot = process.getuid?.() === 0;

/** The line start-up (or the CLI opening the database itself) ends with on `dataDir`. */
const refusal = async (dataDir: string): Promise<string> => {
  const error = await openEngine({ databaseUrl: undefined, dataDir, logger: new RecordingLogger(), shortLived: true }).then(
    async (open) => {
      await closeEngine(open);
      return undefined;
    },
    (caught: unknown) => caught,
  );
  expect(error, 'the embedded database opened').to.be.instanceOf(Error);
  return (explainDatabaseFailure(error) as Error).message;
};

describe('DATA_DIR must be private to the account that runs the service', function () {
  this.timeout(60_000);

  it('a world-writable DATA_DIR stops the start with one line naming it, its mode and the fix; nothing is written in it', async () => {
    const dataDir = await tempDir('data-dir-777');
    await chmod(dataDir, 0o777);
    expect(await refusal(dataDir)).to.equal(
      `DATA_DIR: ${dataDir} (mode 0777) is writable by other accounts, who could replace what the service keeps there (its admin socket, lock file, database, job worktrees); make it owner-only: chmod 700 ${dataDir}`,
    );
    expect(await readdir(dataDir)).to.deep.equal([]);
    expect((await stat(dataDir)).mode & 0o7777).to.equal(0o777); // reported, not changed behind the operator's back
  });

  it('the sticky bit (mode 1777, like /tmp) does not make it private: refused, saying why', async () => {
    const dataDir = await tempDir('data-dir-1777');
    await chmod(dataDir, 0o1777);
    expect(await refusal(dataDir)).to.equal(
      `DATA_DIR: ${dataDir} (mode 1777) is writable by other accounts (the sticky bit does not keep them from creating its entries), who could replace what the service keeps there (its admin socket, lock file, database, job worktrees); make it owner-only: chmod 700 ${dataDir}`,
    );
  });

  it('a group-writable DATA_DIR is refused too', async () => {
    const dataDir = await tempDir('data-dir-770');
    await chmod(dataDir, 0o770);
    expect(await refusal(dataDir)).to.match(/^DATA_DIR: .* \(mode 0770\) is writable by its group, .*chmod 700 /);
  });

  it('an owner-only DATA_DIR (0700, or 0755: readable is not writable) opens, and a missing one is created owner-only', async () => {
    const dataDir = await tempDir('data-dir-755');
    await chmod(dataDir, 0o755);
    expect(await checkPrivateDataDir(dataDir)).to.deep.include({ mode: 0o755 });
    const created = join(dataDir, 'new', 'data');
    const open = await openEngine({ databaseUrl: undefined, dataDir: created, logger: new RecordingLogger(), shortLived: true });
    await closeEngine(open);
    expect((await stat(created)).mode & 0o777).to.equal(0o700);
  });

  it("a DATA_DIR owned by another account is refused, except to root (sudo works on a service account's directory)", async () => {
    expect(unsafeDataDirReason('/srv/agw', { mode: 0o700, uid: 1001 }, 1000)).to.equal(
      '/srv/agw is owned by uid 1001, not by the account running this process (uid 1000), and that account could replace what the service keeps there; run as its owner, or give it to this account: chown 1000 /srv/agw',
    );
    expect(unsafeDataDirReason('/srv/agw', { mode: 0o700, uid: 0 }, 1000), "root's").to.equal(null);
    expect(unsafeDataDirReason('/srv/agw', { mode: 0o700, uid: 1001 }, 0), 'as root').to.equal(null);
    expect(unsafeDataDirReason('/srv/agw', { mode: 0o700, uid: 1000 }, 1000), 'its own').to.equal(null);
  });

  (isRoot ? it : it.skip)(
    `a DATA_DIR chowned to another account, read from disk: refused for a non-root account, accepted for root${isRoot ? '' : ' — pending: chown needs root, and these tests do not run as root'}`,
    async () => {
      const dataDir = await tempDir('data-dir-owner');
      await chown(dataDir, 12345, 12345);
      const refused = await checkPrivateDataDir(dataDir, 1000).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(refused).to.be.instanceOf(UnsafeDataDir).and.to.have.property('message').that.includes(`is owned by uid 12345`);
      expect(await checkPrivateDataDir(dataDir, 0)).to.deep.equal({ mode: 0o700, uid: 12345 });
    },
  );

  it('on PostgreSQL an existing DATA_DIR (job worktrees, start marks) is checked too, before the server is asked; a missing one is no error', async () => {
    const dataDir = await tempDir('data-dir-pg-777');
    await chmod(dataDir, 0o777);
    // Port 1: nothing listens there; the refusal comes before any connection is tried.
    const refused = await openEngine({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', dataDir, logger: new RecordingLogger() }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((explainDatabaseFailure(refused) as Error).message).to.match(/^DATA_DIR: .* \(mode 0777\) is writable by other accounts/);
    const missing = await openEngine({
      databaseUrl: 'postgres://postgres@127.0.0.1:1/none',
      dataDir: join(dataDir, 'absent'),
      logger: new RecordingLogger(),
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((explainDatabaseFailure(missing) as Error).message).to.not.match(/^DATA_DIR/);
  });

  it('a CLI command on PostgreSQL (short-lived) is not held up by a DATA_DIR it does not use', async () => {
    const dataDir = await tempDir('data-dir-pg-cli');
    await chmod(dataDir, 0o777);
    const failed = await openEngine({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', dataDir, logger: new RecordingLogger(), shortLived: true }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    // It gets as far as the server, which nothing answers on port 1.
    expect((explainDatabaseFailure(failed) as Error).message).to.match(/^DATABASE_URL: /);
  });
});
