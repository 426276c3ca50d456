import { rm } from 'node:fs/promises';
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
  /**
   * Written when the early intake starts, removed once the app serves (Gateway.start): a start
   * that finds it, left by a start that ended before serving (a setting it failed, a crash loop),
   * takes nothing in early, so that failing starts do not go on answering requests they never run.
   */
  starting: join(dataDir, 'intake', 'starting'),
  /** The running service's two journals (JournaledIntake), taking turns. */
  requests: [join(dataDir, 'intake', 'requests-1.jsonl'), join(dataDir, 'intake', 'requests-2.jsonl')] as const,
});

/** Removes the mark of a start under way (`starting`): the start serves, the next one may take requests in early. */
export const clearStartingMark = (dataDir: string): Promise<void> => rm(earlyIntakeFiles(dataDir).starting, { force: true });
