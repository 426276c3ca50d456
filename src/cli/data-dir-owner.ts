import { readFile, stat } from 'node:fs/promises';
import { CliFailure } from './usage-error.js';

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

/** The name of the account `uid` in /etc/passwd, or undefined when it has none there (or there is no such file). */
export const accountName = async (uid: number, passwd = '/etc/passwd'): Promise<string | undefined> => {
  const text = await readFile(passwd, 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    const [name, , id] = line.split(':');
    if (name && id !== undefined && Number(id) === uid && id.trim() !== '') return name;
  }
  return undefined;
};

/** `word` as a POSIX shell reads it back: bare when it holds only safe characters, else single-quoted. */
const shellWord = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/**
 * The CLI cannot read DATA_DIR's lock file or database (EACCES, EPERM): DATA_DIR is another
 * account's, owner-only. A server may be running as that account, holding the database: this
 * command can neither tell nor reach it, and must not take the database for free (opening it
 * beside that server, "creating" one that exists, a reload that reloads nothing), nor have DATA_DIR
 * given to this account (a chown would take it from that server). It says whose DATA_DIR is and
 * how to run the command as that account.
 */
export class DataDirOfAnotherAccount extends CliFailure {
  constructor(
    readonly dataDir: string,
    /** DATA_DIR's owner; undefined when even that cannot be read. */
    readonly owner: { readonly uid: number; readonly name: string | undefined } | undefined,
    /** What could not be read, and why (`…/embedded.pid (EACCES)`). */
    unreadable: string,
    argv: readonly string[],
    me: number | undefined,
    options?: { cause?: unknown },
  ) {
    const account = owner === undefined ? undefined : `uid ${owner.uid}${owner.name !== undefined ? ` (${owner.name})` : ''}`;
    const command = `env DATA_DIR=${shellWord(dataDir)} agent-gateway ${argv.map(shellWord).join(' ')}`.trimEnd();
    super(
      owner === undefined
        ? `DATA_DIR: this account${me !== undefined ? ` (uid ${me})` : ''} cannot read ${unreadable}, so whether a server holds the embedded database in ${dataDir} cannot be told: ` +
            'run the command as the account that runs the service'
        : `DATA_DIR: ${dataDir} belongs to ${account}, and this account${me !== undefined ? ` (uid ${me})` : ''} cannot read ${unreadable}: ` +
            `a server may be running as that account, holding the embedded database, which this command can neither tell nor reach. ` +
            `Run the command as that account: sudo -u '#${owner.uid}' ${command}`,
      options,
    );
    this.name = 'DataDirOfAnotherAccount';
  }
}

/** The DataDirOfAnotherAccount failure for `dataDir`, whose `unreadable` could not be read (`error`). */
export const dataDirOfAnotherAccount = async (
  dataDir: string,
  unreadable: string,
  error: unknown,
  argv: readonly string[] = process.argv.slice(2),
  me: number | undefined = process.getuid?.(),
): Promise<DataDirOfAnotherAccount> => {
  const found = await ownerOnDisk(dataDir).catch(() => undefined);
  const owner = found === undefined ? undefined : { uid: found.uid, name: await accountName(found.uid) };
  return new DataDirOfAnotherAccount(dataDir, owner, unreadable, argv, me, { cause: error });
};
