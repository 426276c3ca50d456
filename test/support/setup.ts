import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { freemem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import nock from 'nock';
import { killSurvivors, removeTempDirs, survivors } from './gateway-process.js';

// nock intercepts every HTTP request of the process from the moment it is imported, loopback
// servers of other suites included (it decompresses their bodies itself, and fails on a corrupt
// gzip body a test sends on purpose). Off by default: the suites that fake a third-party API
// with it switch it on for themselves and off again.
nock.restore();

/**
 * Mocha root hooks (this file is loaded with --require). After each test file (parallel mode;
 * after the whole run otherwise), any gateway or CLI process a test spawned and never stopped —
 * its suite's setup failed or timed out before the stop — is killed and named, so that no test
 * run leaves processes behind; then the file's temporary directories are removed.
 */
export const mochaHooks = {
  async afterAll(): Promise<void> {
    const left = survivors();
    if (left.length > 0) {
      killSurvivors();
      process.stderr.write(`killed ${left.length} test process(es) left running: ${left.map((s) => `${s.pid} ${s.command}`).join('; ')}\n`);
    }
    await removeTempDirs();
  },
};

const run = promisify(execFile);

/** Whether a process with the id `pid` runs (kill -0; EPERM: it runs as another account). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The run tmpfs a run of process `pid` mounted: `<tmpdir>/agw-run-<pid>-XXXXXX`. */
const RUN_TMPFS = /\/agw-run-(\d+)-[^/]+$/;

/**
 * A memory file system (tmpfs) mounted for the run's temporary files, when this process may mount
 * one (root with CAP_SYS_ADMIN on Linux, as embedded-disk-full.test.ts) and the machine has the
 * memory (at least 8 GiB free; a tmpfs takes only what it holds): every DATA_DIR, embedded
 * database and template the tests make is written there instead of the disk. The embedded database
 * flushes its files (fsync) at every start and commit, and the tests start hundreds of gateways
 * and CLI runs: on the 2-core machine's ext4 disk, beside other processes' I/O, those flushes were
 * a good part of the run's system time and of its variance under load. The service's code runs
 * unchanged (its fsync calls still run; a tmpfs answers them at once); a kill -9 loses nothing on
 * either (no test cuts the power). Mounted under the system's temporary directory, not /dev/shm,
 * which the service refuses as a DATA_DIR (a kernel file system). Anything else (not root, not
 * Linux, less memory, AGW_TEST_TMPFS=0): the system's temporary directory, as before.
 * A mount a killed run left behind (its process gone) is unmounted first.
 */
const mountRunTmpfs = async (): Promise<string | undefined> => {
  if (process.platform !== 'linux' || process.env.AGW_TEST_TMPFS === '0' || freemem() < 8 * 2 ** 30) return undefined;
  const mounts = await readFile('/proc/self/mounts', 'utf8').catch(() => '');
  for (const target of mounts.split('\n').map((line) => line.split(' ')[1] ?? '')) {
    const owner = RUN_TMPFS.exec(target);
    if (owner === null || !target.startsWith(tmpdir()) || alive(Number(owner[1]))) continue;
    await run('umount', ['-l', target]).catch(() => undefined);
    await rm(target, { recursive: true, force: true }).catch(() => undefined);
  }
  const dir = await mkdtemp(join(tmpdir(), `agw-run-${process.pid}-`));
  try {
    // mode 1777, as /tmp: tests running a CLI as another account (nobody) reach their directories.
    await run('mount', ['-t', 'tmpfs', '-o', 'mode=1777', 'tmpfs', dir]);
    return dir;
  } catch {
    await rm(dir, { recursive: true, force: true });
    return undefined;
  }
};

/**
 * Mocha global fixtures, run once in the process that starts the run (before its parallel
 * workers, which inherit the environment): the run's tmpfs, if any (mountRunTmpfs; os.tmpdir()
 * then names it, in this process and the workers), and a directory the whole run shares, where
 * the database templates are made once for all workers (data-dirs.ts, sharedOnce); both removed
 * after the run.
 */
export const mochaGlobalSetup = async (): Promise<void> => {
  const tmpfs = await mountRunTmpfs();
  if (tmpfs !== undefined) {
    process.env.AGW_TEST_TMPFS_DIR = tmpfs;
    process.env.AGW_TEST_SYSTEM_TMPDIR = process.env.TMPDIR ?? '';
    process.env.TMPDIR = tmpfs;
  }
  process.env.AGW_TEST_SHARED_DIR = await mkdtemp(join(tmpdir(), 'agw-shared-'));
};

export const mochaGlobalTeardown = async (): Promise<void> => {
  const dir = process.env.AGW_TEST_SHARED_DIR;
  delete process.env.AGW_TEST_SHARED_DIR;
  if (dir !== undefined) await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  const tmpfs = process.env.AGW_TEST_TMPFS_DIR;
  if (tmpfs === undefined) return;
  const systemTmp = process.env.AGW_TEST_SYSTEM_TMPDIR;
  if (systemTmp) process.env.TMPDIR = systemTmp;
  else delete process.env.TMPDIR;
  delete process.env.AGW_TEST_TMPFS_DIR;
  delete process.env.AGW_TEST_SYSTEM_TMPDIR;
  // Lazily: a process of the run still holding a file there (none should) keeps it until it ends.
  await run('umount', ['-l', tmpfs]).catch(() => undefined);
  await rm(tmpfs, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
};
