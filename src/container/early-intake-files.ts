import { join } from 'node:path';

/**
 * Where the early intake keeps its files, in the embedded database's data directory (owner-only):
 * its journal, and the snapshot of the API keys' digests, which the CLI writes too. A module of
 * its own, so that the CLI loads nothing else of the early intake.
 */
export const earlyIntakeFiles = (dataDir: string) => ({
  journal: join(dataDir, 'intake', 'journal.jsonl'),
  keys: join(dataDir, 'intake', 'keys.json'),
});
