import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/**
 * Mocha global fixtures, run once in the process that starts the run (before its parallel
 * workers, which inherit the environment): a directory the whole run shares, where the database
 * templates are made once for all workers (data-dirs.ts, sharedOnce), removed after the run.
 */
export const mochaGlobalSetup = async (): Promise<void> => {
  process.env.AGW_TEST_SHARED_DIR = await mkdtemp(join(tmpdir(), 'agw-shared-'));
};

export const mochaGlobalTeardown = async (): Promise<void> => {
  const dir = process.env.AGW_TEST_SHARED_DIR;
  delete process.env.AGW_TEST_SHARED_DIR;
  if (dir !== undefined) await rm(dir, { recursive: true, force: true, maxRetries: 3 });
};
