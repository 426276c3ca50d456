import { join } from 'node:path';

/**
 * Where the early intake keeps its files, in the embedded database's data directory (owner-only):
 * its journal, and the snapshot of the API keys' digests, which the CLI writes too; and the
 * journals of the running service's intake. A module of
 * its own, so that the CLI loads nothing else of the early intake.
 */
export const earlyIntakeFiles = (dataDir: string) => ({
  journal: join(dataDir, 'intake', 'journal.jsonl'),
  keys: join(dataDir, 'intake', 'keys.json'),
  /** The running service's two journals (JournaledIntake), taking turns. */
  requests: [join(dataDir, 'intake', 'requests-1.jsonl'), join(dataDir, 'intake', 'requests-2.jsonl')] as const,
});
