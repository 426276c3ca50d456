import { stat } from 'node:fs/promises';

/**
 * Refuses a data directory that is a file before PGlite starts on it: PGlite creates a whole
 * cluster in memory first (15–30 s of one core) and only then fails to write it, with no more
 * than `ErrnoError (errno 54)`. One that does not exist is PGlite's to create; any other
 * question about the path is left to PGlite, which says it in its own words.
 */
export const refuseFileAsDataDir = async (dataDir: string): Promise<void> => {
  const found = await stat(dataDir).catch(() => undefined);
  if (found !== undefined && !found.isDirectory()) throw new Error(`Cannot open the embedded database in ${dataDir}: it is a file, not a directory`);
};
