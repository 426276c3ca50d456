import { stat } from 'node:fs/promises';

/**
 * DATA_DIR must be private to the account that runs the service: it holds the embedded
 * database's files, its lock file (`embedded.pid`, which tells the CLI which process holds the
 * database) and the admin socket (`admin.sock`, through which the CLI sets the admin password
 * and creates keys). The files are created owner-only, but an entry's protection is its
 * directory's: whoever can write DATA_DIR can unlink or rename `admin.sock` and bind a socket of
 * their own in its place (the CLI would then send it the password it sets and receive the keys
 * it creates), write an `embedded.pid` of their choosing, or move the database aside.
 * `mkdir(…, { mode: 0o700 })` protects only a directory it creates; one that exists is used as
 * it is, so it is checked here, before anything is written in it.
 *
 * Refused (start-up stops with one line naming DATA_DIR, the path, the mode and the fix):
 * - Writable by the group or by others. The sticky bit (mode 1777, like /tmp) does not make it
 *   safe: another account can no longer remove our entries, but it can still create the ones
 *   that do not exist yet — `admin.sock` while the service is stopped (the CLI then opens the
 *   database itself, but a CLI started just before the service would reach that impostor),
 *   `embedded.pid` (a lock naming any live process: the database looks busy, and the CLI goes to
 *   the socket), `pglite/` before its first start (a database directory that account owns). A
 *   group-writable directory is refused as well: its group is rarely the service account's alone
 *   (a Kubernetes `fsGroup`, `staff`), and nothing here can tell when it is.
 * - Owned by another account than this process's, or root: its owner can change its mode at any
 *   time. A process running as root accepts any owner: root can do everything anyway, and a
 *   CLI run with sudo works on the service account's directory.
 *
 * Only DATA_DIR itself is checked, not its parents (see docs/deployment.md, "The data
 * directory"). Nothing is checked where the system has no owners and modes (Windows).
 */

/** What the check reads of the directory. */
export interface DirFacts {
  /** Its permission bits with the sticky bit (`stat`'s mode & 0o7777). */
  readonly mode: number;
  readonly uid: number;
}

/** The mode as `chmod` takes it: `0777`, `1777`. */
export const octalMode = (mode: number): string => (mode & 0o7777).toString(8).padStart(4, '0');

/**
 * Why `dir` cannot be used as DATA_DIR by the account `me` (a uid), or null when it can: the
 * check's rules, pure. The reason names the path, the mode and the fix.
 */
export const unsafeDataDirReason = (dir: string, found: DirFacts, me: number): string | null => {
  const writable = found.mode & 0o002 ? 'other accounts' : found.mode & 0o020 ? 'its group' : undefined;
  if (writable !== undefined) {
    const sticky = found.mode & 0o1000 ? ' (the sticky bit does not keep them from creating its entries)' : '';
    return (
      `${dir} (mode ${octalMode(found.mode)}) is writable by ${writable}${sticky}, who could replace what the service keeps there (its admin socket, lock file, database, job worktrees); ` +
      `make it owner-only: chmod 700 ${dir}`
    );
  }
  if (me !== 0 && found.uid !== me && found.uid !== 0) {
    return (
      `${dir} is owned by uid ${found.uid}, not by the account running this process (uid ${me}), and that account could replace what the service keeps there; ` +
      `run as its owner, or give it to this account: chown ${me} ${dir}`
    );
  }
  return null;
};

/** DATA_DIR is not private (see above); the message names the path, the mode and the fix. */
export class UnsafeDataDir extends Error {
  constructor(
    readonly dataDir: string,
    readonly facts: DirFacts,
    reason: string,
  ) {
    super(reason);
    this.name = 'UnsafeDataDir';
  }
}

/** The uid of this process; undefined where the system has none (Windows). */
export const currentUid = (): number | undefined => process.getuid?.();

/**
 * Checks that the existing directory `dir` is private to this process's account (see above).
 * Resolves with what it found (its owner: the CLI's admin socket must be that account's when the
 * CLI runs as root); undefined where nothing is checked.
 * @throws UnsafeDataDir when it is not private; Node's error when it cannot be read.
 */
export const checkPrivateDataDir = async (dir: string, me: number | undefined = currentUid()): Promise<DirFacts | undefined> => {
  if (me === undefined) return undefined;
  // stat, not lstat: a DATA_DIR that is a symbolic link is the directory it points to.
  const found = await stat(dir);
  const facts = { mode: found.mode & 0o7777, uid: found.uid };
  const reason = unsafeDataDirReason(dir, facts, me);
  if (reason !== null) throw new UnsafeDataDir(dir, facts, reason);
  return facts;
};

/** checkPrivateDataDir for a directory that may not exist yet: nothing to check then. */
export const checkPrivateDataDirIfAny = async (dir: string, me: number | undefined = currentUid()): Promise<void> => {
  try {
    await checkPrivateDataDir(dir, me);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
};
