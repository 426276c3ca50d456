import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { closeEngine, openEngine, unwritableExplained } from '../../../src/adapters/persistence/open-engine.js';
import { explainDatabaseFailure } from '../../../src/container/explain-database-failure.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { tempDir } from '../../support/gateway-process.js';

/*
 * A DATA_DIR this account may not write (a directory of another account, or one made by root
 * for the service without giving it away) or on a read-only file system stops the start with a
 * line that names the path Node could not write, the directory to look at and what to do: it
 * said only `cannot use … for the embedded database (EACCES: permission denied)` before.
 */

/** Whether this process may mount a small tmpfs (root with CAP_SYS_ADMIN): a read-only file system for real. */
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

const errno = (code: string, message: string, path: string): NodeJS.ErrnoException => Object.assign(new Error(message), { code, path });

describe('A DATA_DIR the service may not write: the line names the path, the account and the fix', function () {
  this.timeout(60_000);

  it('EACCES creating DATA_DIR: names the directory it would be created in and the account', async () => {
    const parent = await tempDir('unwritable-parent');
    const dataDir = join(parent, 'data');
    expect(unwritableExplained(errno('EACCES', `EACCES: permission denied, mkdir '${dataDir}'`, dataDir), dataDir, 1000)).to.deep.equal({
      error: `EACCES: permission denied, mkdir '${dataDir}'`,
      reason: `this process's account (uid 1000) may not write in ${parent}; run the service as the account that owns it, give that account a directory of its own (owner-only: chmod 700), or choose another DATA_DIR`,
    });
  });

  it('EACCES on a file in DATA_DIR (the lock file of another account): names that file', async () => {
    const dataDir = await tempDir('unwritable-file');
    const lock = join(dataDir, 'embedded.pid');
    writeFileSync(lock, '1\n');
    expect(unwritableExplained(errno('EPERM', `EPERM: operation not permitted, open '${lock}'`, lock), dataDir, 1000)).to.deep.equal({
      error: `EPERM: operation not permitted, open '${lock}'`,
      reason: `this process's account (uid 1000) may not write ${lock}; run the service as the account that owns it, give that account a directory of its own (owner-only: chmod 700), or choose another DATA_DIR`,
    });
  });

  it('other errors are left as they were (undefined), a missing directory that may be created included', async () => {
    expect(unwritableExplained(errno('ENOSPC', 'ENOSPC: no space left on device, write', '/x'), '/x', 1000)).to.equal(undefined);
    const dataDir = join(await tempDir('writable-parent'), 'data');
    expect(unwritableExplained(Object.assign(errno('ENOENT', 'ENOENT', dataDir), { syscall: 'mkdir' }), dataDir, 1000)).to.equal(undefined);
  });

  (canMountTmpfs ? describe : describe.skip)(
    `on a read-only file system${canMountTmpfs ? '' : ' — pending: needs root with CAP_SYS_ADMIN on Linux, to mount a read-only tmpfs'}`,
    () => {
      let mountPoint: string | undefined;

      afterEach(() => {
        if (mountPoint === undefined) return;
        execFileSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
        rmSync(mountPoint, { recursive: true, force: true });
        mountPoint = undefined;
      });

      const readOnlyMount = (): string => {
        mountPoint = mkdtempSync(join(tmpdir(), 'agw-read-only-'));
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=700', 'tmpfs', mountPoint]);
        mkdirSync(join(mountPoint, 'existing'), { mode: 0o700 });
        execFileSync('mount', ['-o', 'remount,ro', mountPoint]);
        return mountPoint;
      };

      it('a DATA_DIR to be created there: the start stops naming the read-only file system and the fix (Node said ENOENT: no such file or directory)', async () => {
        const mount = readOnlyMount();
        const dataDir = join(mount, 'data');
        expect(await refusal(dataDir)).to.equal(
          `DATA_DIR: cannot use ${dataDir} for the embedded database (EROFS: read-only file system, access '${mount}'): ${mount} is on a read-only file system; choose a DATA_DIR on a writable one`,
        );
      });

      it('an existing DATA_DIR there: the lock file cannot be written, said the same way (not as a full disk, though the mount is small)', async () => {
        const dataDir = join(readOnlyMount(), 'existing');
        expect(await refusal(dataDir)).to.match(
          new RegExp(
            `^DATA_DIR: cannot use ${dataDir} for the embedded database \\(EROFS: read-only file system, [a-z]+ '${dataDir}/[^']+'\\): ${dataDir} is on a read-only file system; choose a DATA_DIR on a writable one$`,
          ),
        );
      });
    },
  );
});
