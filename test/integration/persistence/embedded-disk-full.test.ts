import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createPino, PinoLogger } from '../../../src/adapters/logging/pino-logger.js';
import { openEngine, SERVICE_SETTINGS } from '../../../src/adapters/persistence/open-engine.js';
import { PgliteThread } from '../../../src/adapters/persistence/pglite/pglite-thread.js';
import { emptyPgliteDir } from '../../support/data-dirs.js';
import { within } from '../../support/time-limit.js';

/** Whether this process may mount a small tmpfs (root with CAP_SYS_ADMIN): a disk that fills up for real. */
const canMountTmpfs = ((): boolean => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), 'agw-tmpfs-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

/** The size of a directory tree in MB, rounded up. */
const megabytes = (dir: string): number => Number(execFileSync('du', ['-sm', dir], { encoding: 'utf8' }).split('\t')[0]);

(canMountTmpfs ? describe : describe.skip)(
  `The embedded database on a disk that fills up${canMountTmpfs ? '' : ' — pending: needs root with CAP_SYS_ADMIN on Linux, to mount a small tmpfs'}`,
  function () {
    this.timeout(120_000);
    let mountPoint: string | undefined;
    let db: PgliteThread | undefined;

    afterEach(async () => {
      // Bounded: a thread left stuck (without the fix) never answers its close.
      if (db !== undefined) await within(10_000, 'a statement', db.close()).catch(() => undefined);
      db = undefined;
      if (mountPoint !== undefined) {
        execFileSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
        rmSync(mountPoint, { recursive: true, force: true });
        mountPoint = undefined;
      }
    });

    it('says that the disk is full when the embedded database cannot be created or opened for lack of space (PGlite says only ErrnoError (errno 51))', async () => {
      mountPoint = mkdtempSync(join(tmpdir(), 'agw-disk-full-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=700', 'tmpfs', mountPoint]);
      const dataDir = join(mountPoint, 'data');
      const error = await openEngine({ databaseUrl: undefined, dataDir, logger: new PinoLogger(createPino('silent')), shortLived: true }).then(
        () => undefined,
        (failure: Error) => failure,
      );
      expect(error?.name).to.equal('DatabaseOpenError');
      expect(error?.message).to.match(
        new RegExp(
          `^Cannot open the embedded database in ${dataDir}/pglite: .*: the disk that holds ${dataDir} is full or nearly \\([0-9.]+ MB free\\); free space there, then start again`,
        ),
      );
    });

    it('refuses every statement after PostgreSQL PANICs on a full disk, naming the cause, and tells onFailure once, instead of leaving them unanswered for ever', async () => {
      const template = await emptyPgliteDir('disk-full');
      mountPoint = mkdtempSync(join(tmpdir(), 'agw-disk-full-'));
      // Room for the cluster and a little more: the write-ahead log's next segment (16 MB) cannot be made.
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes(template) + 8}m,mode=700`, 'tmpfs', mountPoint]);
      const dir = join(mountPoint, 'pglite');
      mkdirSync(dir, { mode: 0o700 });
      await cp(template, dir, { recursive: true });
      const failures: Error[] = [];
      db = await PgliteThread.open(dir, (error) => failures.push(error), SERVICE_SETTINGS);
      await db.exec('create table fill (body text not null)');

      let panic: (Error & { severity?: string }) | undefined;
      for (let row = 0; row < 5_000 && panic === undefined; row++) {
        try {
          // Random text: PostgreSQL cannot compress it, so every row takes its room in the log.
          await within(30_000, 'a statement', db.query('insert into fill (body) values ($1)', [randomBytes(30_000).toString('base64')]));
        } catch (error) {
          if ((error as { severity?: string }).severity === 'PANIC') panic = error as Error;
          else if (!/No space left on device/.test((error as Error).message)) throw error;
        }
      }
      expect(panic?.message).to.match(/No space left on device/);

      // The statement after the PANIC is refused at once, with the cause and what to do.
      const next = await within(10_000, 'a statement', db.query('select 1')).then(
        () => undefined,
        (error: Error) => error,
      );
      expect(next?.message).to.match(/^The embedded database stopped after a PANIC: .*No space left on device.*free space on the disk that holds DATA_DIR/);
      expect(failures.map((error) => error.message)).to.deep.equal([next?.message]);
      expect(db.closed).to.equal(true);
    });
  },
);
