import { stat } from 'node:fs/promises';

/** What switching accounts needs of the process (node:process; a fake in tests). */
export interface ProcessIdentity {
  getuid?(): number;
  setgroups?(groups: number[]): void;
  setgid?(id: number): void;
  setuid?(id: number): void;
}

/** The owner of a directory, or undefined when it does not exist. */
export type OwnerOf = (dir: string) => Promise<{ readonly uid: number; readonly gid: number } | undefined>;

const ownerOnDisk: OwnerOf = async (dir) => {
  try {
    const found = await stat(dir);
    return { uid: found.uid, gid: found.gid };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

/** The CLI runs as root on an embedded database another account owns, and cannot become that account. */
export class CannotActAsOwner extends Error {
  constructor(dataDir: string, uid: number, cause: unknown) {
    super(
      `DATA_DIR: ${dataDir} belongs to uid ${uid}, and this command, run as root, could not switch to that account before opening its embedded database (${(cause as Error).message}); ` +
        `files it wrote as root would keep the service from opening the database: run it as that account, e.g. sudo -u '#${uid}' agent-gateway …`,
    );
    this.name = 'CannotActAsOwner';
  }
}

/**
 * Run as root (`sudo agent-gateway keys create`) with no server holding the embedded database,
 * the CLI opens the database itself. PGlite then writes files as root in DATA_DIR (its cache
 * files, new relation and log segments, the early intake's key snapshot), and the service,
 * started again as its own account, cannot open them: it stopped with PGlite's bare
 * `Aborted()` until someone ran `chown -R`. So, before anything is opened, a CLI running as root
 * on a DATA_DIR another account owns becomes that account (its uid, and DATA_DIR's group as its
 * only group) for the rest of the command: what it writes there is the service's, as when the
 * service's account runs it. Resolves with the uid taken, or undefined when nothing changed (not
 * root, DATA_DIR root's or not there yet, or a system without accounts).
 * @throws CannotActAsOwner when the switch is refused (a root without CAP_SETUID, in a container).
 */
export const actAsDataDirOwner = async (dataDir: string, proc: ProcessIdentity = process, ownerOf: OwnerOf = ownerOnDisk): Promise<number | undefined> => {
  if (proc.getuid?.() !== 0 || proc.setuid === undefined || proc.setgid === undefined) return undefined;
  const owner = await ownerOf(dataDir);
  if (owner === undefined || owner.uid === 0) return undefined;
  try {
    // Groups first: once the uid is no longer root, neither can be changed.
    proc.setgroups?.([owner.gid]);
    proc.setgid(owner.gid);
    proc.setuid(owner.uid);
  } catch (error) {
    throw new CannotActAsOwner(dataDir, owner.uid, error);
  }
  return owner.uid;
};
