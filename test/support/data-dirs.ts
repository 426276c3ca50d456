import { execFile } from 'node:child_process';
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

let template: Promise<string> | undefined;

const makeTemplate = async (): Promise<string> => {
  const dir = await processTempDir('template-data');
  const gateway = await startGateway({ DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'NONE.json') });
  const code = await gateway.stop();
  if (code !== 0)
    throw new GatewayStartFailure(`the template DATA_DIR's gateway stopped with ${code}:\n${gateway.logs.map((l) => JSON.stringify(l)).join('\n')}`, undefined);
  return dir;
};

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
  pgliteTemplate ??= (async () => {
    const dir = join(await processTempDir('template-pglite'), 'pglite');
    const thread = await openPglite(dir);
    await thread.close();
    return dir;
  })();
  let source: string;
  try {
    source = await pgliteTemplate;
  } catch (error) {
    pgliteTemplate = undefined;
    throw error;
  }
  const dir = join(await tempDir(prefix), 'pglite');
  await copyTree(source, dir);
  return dir;
};
