import { lstat, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** Most entries looked at: a database's directory holds a few thousand; past this the search stops. */
const MOST_ENTRIES = 50_000;
/** Most paths named in the message. */
const NAMED = 3;

/** Entries under a directory that another account owns: how many were found, and the first few, relative to the directory. */
export interface ForeignOwned {
  readonly count: number;
  readonly owners: readonly number[];
  readonly first: readonly string[];
}

/**
 * The entries under `dir` (itself included) that are not owned by `me`: what keeps a process
 * that is not root from opening files another account wrote there (PGlite then stops with a bare
 * `Aborted()`). Undefined when there is none, or when `dir` cannot be read.
 */
export const foreignOwnedEntries = async (dir: string, me: number): Promise<ForeignOwned | undefined> => {
  let names: string[];
  try {
    names = ['', ...(await readdir(dir, { recursive: true })).slice(0, MOST_ENTRIES).sort()];
  } catch {
    return undefined;
  }
  let count = 0;
  const owners = new Set<number>();
  const first: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const uid = await lstat(path).then(
      (found) => found.uid,
      () => me,
    );
    if (uid === me) continue;
    count++;
    owners.add(uid);
    if (first.length < NAMED) first.push(relative(dir, path) || 'the directory itself');
  }
  return count === 0 ? undefined : { count, owners: [...owners].sort((a, b) => a - b), first };
};

/**
 * Why the embedded database in `dataDir` could not be opened, when files of another account
 * are in its way: one line naming how many, whose, the first few, and the command that gives
 * them back. Undefined when this process runs as root (it can open anything) or none is found.
 */
export const foreignOwnedReason = async (dataDir: string, me: number | undefined = process.getuid?.()): Promise<string | undefined> => {
  if (me === undefined || me === 0) return undefined;
  const found = await foreignOwnedEntries(dataDir, me);
  if (found === undefined) return undefined;
  const whose = found.owners.map((uid) => `uid ${uid}${uid === 0 ? ' (root)' : ''}`).join(', ');
  const more = found.count > found.first.length ? ', …' : '';
  return (
    `${found.count} ${found.count === 1 ? 'entry' : 'entries'} in ${dataDir} ${found.count === 1 ? 'belongs' : 'belong'} to another account than this process's (uid ${me}): ${whose} — ${found.first.join(', ')}${more}. ` +
    `A process run as that account wrote them (a command or the service run as root, a restore); give them back to this account: chown -R ${me} ${dataDir}`
  );
};
