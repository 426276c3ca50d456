import { randomUUID } from 'node:crypto';
import { link, mkdir, open, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Thrown when another live process has the embedded database open. */
export class EmbeddedDatabaseBusy extends Error {
  constructor(
    readonly pid: number,
    readonly dataDir: string,
  ) {
    super(`The embedded database in ${dataDir} is in use by process ${pid}`);
    this.name = 'EmbeddedDatabaseBusy';
  }
}

const isProcessAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Who this process is and how it tells a live process; tests stand in several processes in one. */
export interface LockIdentity {
  readonly pid: number;
  readonly isAlive: (pid: number) => boolean;
}

const THIS_PROCESS: LockIdentity = { pid: process.pid, isAlive: isProcessAlive };

/** A takeover guard older than this was left by a process that died holding it. */
const GUARD_STALE_MS = 10_000;

/** The lock file as read: its pid (NaN when it holds none) and its inode, which tells one file from its replacement. */
interface LockFile {
  readonly pid: number;
  readonly ino: number;
}

/**
 * PGlite is single-process: two processes opening one data directory would corrupt it.
 * This pid file makes the second one fail clearly instead; a file left by a dead process is taken over.
 *
 * The file appears with its pid already in it (written to a file of this process's own, then
 * hard-linked into place, which fails if the lock exists), so no other process can read it
 * empty and take it for a dead one's. A dead process's file is removed under a takeover guard
 * (see #removeStale): of processes taking one stale lock over at once, exactly one gets it.
 */
export class EmbeddedLock {
  readonly #file: string;

  constructor(
    private readonly dataDir: string,
    private readonly self: LockIdentity = THIS_PROCESS,
  ) {
    this.#file = join(dataDir, 'embedded.pid');
  }

  /** The pid holding the lock, or null when nobody alive holds it. */
  async holder(): Promise<number | null> {
    const file = await this.#read(this.#file);
    return file === null ? null : this.#liveOther(file.pid);
  }

  async acquire(): Promise<void> {
    await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    const mine = join(this.dataDir, `embedded.pid.${this.self.pid}.${randomUUID()}`);
    await writeFile(mine, String(this.self.pid), { flag: 'wx', mode: 0o600 });
    // Long enough for a takeover guard left by a process that died holding it to turn stale.
    const giveUpAt = Date.now() + GUARD_STALE_MS + 2_000;
    try {
      while (Date.now() < giveUpAt) {
        try {
          await link(mine, this.#file);
          return;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          // A file system without hard links (some network or FUSE mounts): created in place,
          // briefly empty (a process reading it then takes it for a dead one's, as before).
          if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') {
            if (await this.#createInPlace()) return;
          } else if (code !== 'EEXIST') throw error;
        }
        const found = await this.#read(this.#file);
        if (found === null) continue; // released meanwhile: try again
        const pid = this.#liveOther(found.pid);
        if (pid !== null) throw new EmbeddedDatabaseBusy(pid, this.dataDir);
        await this.#removeStale(found);
      }
    } finally {
      await unlink(mine).catch(() => undefined);
    }
    throw new Error(`Could not lock the embedded database in ${this.dataDir}: other processes kept taking the lock file over`);
  }

  /** The lock file made the way of a file system without hard links; false when one exists. */
  async #createInPlace(): Promise<boolean> {
    try {
      await writeFile(this.#file, String(this.self.pid), { flag: 'wx', mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return false;
    }
  }

  async release(): Promise<void> {
    const file = await this.#read(this.#file);
    if (file?.pid === this.self.pid) await unlink(this.#file).catch(() => undefined);
  }

  #liveOther(pid: number): number | null {
    return Number.isInteger(pid) && pid > 0 && pid !== this.self.pid && this.self.isAlive(pid) ? pid : null;
  }

  /** The file's pid and inode, read through one handle (so both are of the same file); null when there is none. */
  async #read(path: string): Promise<LockFile | null> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(path, 'r');
    } catch {
      return null;
    }
    try {
      const { ino } = await handle.stat();
      return { pid: Number((await handle.readFile('utf8')).trim() || Number.NaN), ino };
    } finally {
      await handle.close();
    }
  }

  /**
   * Removes the stale lock `seen` unless it was replaced since. Only a process holding the
   * takeover guard removes a lock file, and a new one only appears where there is none, so the
   * file read under the guard is still `seen` exactly when its inode is. A guard left by a
   * process that died while holding it (it holds it for a few milliseconds) is cleared.
   */
  async #removeStale(seen: LockFile): Promise<void> {
    const guard = join(this.dataDir, 'embedded.pid.takeover');
    try {
      await writeFile(guard, String(this.self.pid), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const since = await stat(guard).then(
        (found) => Date.now() - found.mtimeMs,
        () => 0,
      );
      if (since > GUARD_STALE_MS) await unlink(guard).catch(() => undefined);
      else await new Promise((resolve) => setTimeout(resolve, 10));
      return;
    }
    try {
      const now = await this.#read(this.#file);
      if (now !== null && now.ino === seen.ino) await unlink(this.#file).catch(() => undefined);
    } finally {
      await unlink(guard).catch(() => undefined);
    }
  }
}
