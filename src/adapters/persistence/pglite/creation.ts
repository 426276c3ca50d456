import { closeSync, fsyncSync, openSync } from 'node:fs';
import { lstat, open, readdir, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { syncFileSystems } from './durable-node-fs.js';

/** The mark of a creation under way, beside the database's directory (`DATA_DIR/pglite.creating`). */
export const creationMark = (dir: string): string => `${dir}.creating`;

/**
 * The creation of a new embedded database, made safe to interrupt.
 *
 * PGlite creates a database by running initdb in memory and then writing its ~1 000 files into
 * the directory one by one, `PG_VERSION` among the last and the configuration files after it; it
 * flushes none of them. A process killed in between left a directory PGlite takes for a database
 * (`PG_VERSION` is there) and cannot start (`PGlite failed to initialize properly`, for good), and
 * a power loss in the first seconds after the first start could lose catalog files that were
 * never flushed, with the keys and settings stored since.
 *
 * So the creation is marked, and the mark, written and flushed before it, is removed only once
 * the new database has started and every file of it is on the disk. A directory found under a
 * mark holds nothing but an unfinished creation (the migrations, and so every row, come after
 * the mark is gone): it is emptied and the database created again.
 */
export const beginCreation = async (dir: string): Promise<{ readonly created: boolean }> => {
  const mark = creationMark(dir);
  if (await exists(mark)) {
    // An unfinished creation: nothing but initdb's files.
    await rm(dir, { recursive: true, force: true });
  } else if (await exists(join(dir, 'PG_VERSION'))) {
    return { created: false };
  }
  const handle = await open(mark, 'w', 0o600);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  flushDirectory(dirname(mark));
  return { created: true };
};

/** The new database has started: its files are flushed to the disk, then the mark is removed. */
export const endCreation = async (dir: string): Promise<void> => {
  if (!syncFileSystems(dir)()) await flushTree(dir);
  const mark = creationMark(dir);
  await unlink(mark);
  flushDirectory(dirname(mark));
};

const exists = async (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

const flushDirectory = (path: string): void => {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
};

/** Flushes every file and directory under `dir` (`dir` too), one by one. */
const flushTree = async (dir: string): Promise<void> => {
  for (const entry of await readdir(dir)) {
    const path = join(dir, entry);
    const info = await lstat(path);
    if (info.isDirectory()) await flushTree(path);
    else if (info.isFile()) flushDirectory(path);
  }
  flushDirectory(dir);
};
