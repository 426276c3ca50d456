import { execFile } from 'node:child_process';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { SERVICE_SETTINGS } from '../../src/adapters/persistence/open-engine.js';
import { PgliteThread } from '../../src/adapters/persistence/pglite/pglite-thread.js';
import { GatewayStartFailure, processTempDir, startGateway, tempDir } from './gateway-process.js';

/*
 * A new embedded database costs a gateway its longest start-up step: PGlite creates the
 * cluster (initdb), then every migration and the task queue's schema run. Suites whose
 * gateways need a DATA_DIR, but not a NEW one, start on a copy of one made once per test
 * process: the built gateway started on an empty directory and stopped gracefully, so the copy
 * holds exactly what a first start leaves (the database, migrated, and nothing else).
 * Tests of what a first start does (creating and migrating a database, the CLI on a new
 * DATA_DIR) keep using an empty `tempDir`.
 */

/**
 * Copies the directory `source` to `target` (which must not exist yet) with cp(1): a PGlite
 * data directory is a thousand files, which Node's `fs.cp` copies in ~330 ms and cp in ~35 ms.
 */
export const copyTree = async (source: string, target: string): Promise<void> => {
  await promisify(execFile)('cp', ['-R', source, target]);
};

/**
 * The directory the whole test run shares (setup.ts's global setup names it in
 * AGW_TEST_SHARED_DIR; mocha's workers inherit it): a template is then made once per run by the
 * first worker that needs it, instead of once in each worker — creating a PGlite cluster takes
 * ~11 s of CPU, a migrated DATA_DIR ~10 s more, on the 2-core machine. Without it (a file run
 * outside the configured run), each process makes its own.
 */
const SHARED_DIR = process.env.AGW_TEST_SHARED_DIR;
/** How long a worker waits for another's template before making its own. */
const SHARED_WAIT_MS = 180_000;

/**
 * `make`'s directory, made once per test run when the run shares a directory: the first process
 * to take `<name>.lock` (mkdir is atomic) makes it and renames it into place; the others wait
 * for it (polling the file system: the template is there or its maker said it failed). A maker
 * that fails writes `<name>.failed` and each process then makes its own, as without sharing.
 */
export const sharedOnce = async (name: string, make: () => Promise<string>): Promise<string> => {
  if (SHARED_DIR === undefined) return make();
  const ready = join(SHARED_DIR, name);
  const failed = join(SHARED_DIR, `${name}.failed`);
  const exists = (path: string) =>
    stat(path).then(
      () => true,
      () => false,
    );
  try {
    await mkdir(join(SHARED_DIR, `${name}.lock`));
  } catch {
    const deadline = Date.now() + SHARED_WAIT_MS;
    while (Date.now() < deadline) {
      if (await exists(ready)) return ready;
      if (await exists(failed)) return make();
      await delay(100);
    }
    return make();
  }
  try {
    const made = await make();
    await rename(made, ready);
    return ready;
  } catch (error) {
    await writeFile(failed, String(error)).catch(() => undefined);
    throw error;
  }
};

let template: Promise<string> | undefined;

const makeTemplate = (): Promise<string> =>
  sharedOnce('template-data', async () => {
    const dir = await processTempDir('template-data');
    // The cluster made once (emptyPgliteDir's template): the gateway then only migrates it.
    await copyTree(await pgliteTemplateDir(), join(dir, 'pglite'));
    const gateway = await startGateway({ DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'NONE.json') });
    const code = await gateway.stop();
    if (code !== 0)
      throw new GatewayStartFailure(
        `the template DATA_DIR's gateway stopped with ${code}:\n${gateway.logs.map((l) => JSON.stringify(l)).join('\n')}`,
        undefined,
      );
    return dir;
  });

/**
 * A new temporary DATA_DIR holding an embedded database that is already created and migrated
 * (no gateway holds it: no embedded.pid), for a gateway started on it.
 */
export const migratedDataDir = async (prefix: string): Promise<string> => {
  template ??= makeTemplate();
  let source: string;
  try {
    source = await template;
  } catch (error) {
    template = undefined; // the next suite tries again
    throw error;
  }
  const dir = await tempDir(prefix);
  await copyTree(join(source, 'pglite'), join(dir, 'pglite'));
  return dir;
};

let pgliteTemplate: Promise<string> | undefined;

/**
 * Opens the embedded database in `dir` on its thread as the service boots it (SERVICE_SETTINGS),
 * for tests that use PGlite without the ORM. PGlite's own defaults (128 MB of shared buffers,
 * which it zeroes at every boot) would make each open about twice as long (~1.05 s against
 * ~0.55 s on the 2-core machine) and test a database the service never runs.
 */
export const openPglite = (dir: string): Promise<PgliteThread> => PgliteThread.open(dir, undefined, SERVICE_SETTINGS);

/**
 * A new, empty PGlite data directory (the cluster created once per test process, then copied):
 * for tests that open PGlite themselves and need a database of their own, with nothing in it.
 */
export const emptyPgliteDir = async (prefix: string): Promise<string> => {
  const dir = join(await tempDir(prefix), 'pglite');
  await copyTree(await pgliteTemplateDir(), dir);
  return dir;
};

/** The empty cluster that emptyPgliteDir and the migrated template copy, made once per run (sharedOnce) or per process. */
const pgliteTemplateDir = async (): Promise<string> => {
  pgliteTemplate ??= sharedOnce('template-pglite', async () => {
    const dir = join(await processTempDir('template-pglite'), 'pglite');
    const thread = await openPglite(dir);
    await thread.close();
    return dir;
  });
  try {
    return await pgliteTemplate;
  } catch (error) {
    pgliteTemplate = undefined;
    throw error;
  }
};
