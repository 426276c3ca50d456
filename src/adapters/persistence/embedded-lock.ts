import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { link, mkdir, open, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname, uptime } from 'node:os';
import { join } from 'node:path';

/** Thrown when another live process has the embedded database open. */
export class EmbeddedDatabaseBusy extends Error {
  constructor(
    readonly pid: number,
    readonly dataDir: string,
    /** The lock file naming the holder. */
    readonly file: string = join(dataDir, 'embedded.pid'),
    /** The holder's host, when it runs elsewhere (another machine, container or pid namespace): its pid means nothing here. */
    readonly host?: string,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid}` +
        (host === undefined ? ` (lock file ${file})` : ` on host ${host} (lock file ${file}; it is renewed while that process runs)`),
    );
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

/** A one-line fact read from the system, null when unavailable (not Linux, /proc hidden or absent). */
const fact = (read: () => string): string | null => {
  try {
    const value = read().trim();
    return value === '' ? null : value;
  } catch {
    return null;
  }
};

/** When process `pid` started (field 22 of /proc/<pid>/stat, in clock ticks since boot): it tells a process from a later one given its pid. */
const startOfProcess = (pid: number): string | null =>
  fact(() => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces; field 3 follows its last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  });

/**
 * Who this process is and how it tells a live process; tests stand in several processes in one.
 * A pid means something only on its host, in its boot and in its pid namespace (each container
 * has its own, where the service is often pid 1): those facts are recorded with it.
 */
export interface LockIdentity {
  readonly pid: number;
  readonly isAlive: (pid: number) => boolean;
  /** The host name (a container's own, in a container). */
  readonly host?: string;
  /** The kernel's boot id; null when unknown. */
  readonly boot?: string | null;
  /** The pid namespace (`pid:[4026531836]`); null when unknown. */
  readonly pidns?: string | null;
  /** When the machine booted, in ms since the epoch. */
  readonly bootedAt?: number;
  /** When process `pid` started, null when unknown. */
  readonly startOf?: (pid: number) => string | null;
}

type Identity = Required<LockIdentity>;

const thisMachine = (): Omit<Identity, 'pid' | 'isAlive'> => ({
  host: hostname(),
  boot: fact(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8')),
  pidns: fact(() => readlinkSync('/proc/self/ns/pid')),
  bootedAt: Date.now() - uptime() * 1000,
  startOf: startOfProcess,
});

/** A takeover guard older than this was left by a process that died holding it. */
const GUARD_STALE_MS = 10_000;

/** How often the holder renews its lease (the lock file's mtime). */
const RENEW_EVERY_MS = 5_000;

/** A lease not renewed for this long is a dead holder's: the holder renews it every RENEW_EVERY_MS. */
export const LEASE_STALE_MS = 30_000;

/** Runs `task` every `ms` until the returned function is called; a test seam (the default neither holds the process up nor lets it exit early). */
export type Every = (task: () => void, ms: number) => () => void;

const everyUnref: Every = (task, ms) => {
  const timer = setInterval(task, ms);
  timer.unref();
  return () => clearInterval(timer);
};

/** Where the pid on line 1 means something, and which process it is (line 2 of the lock file, JSON). */
interface Whereabouts {
  readonly host: string;
  readonly boot: string | null;
  readonly pidns: string | null;
  readonly start: string | null;
}

/** The lock file as read: its pid (NaN when it holds none), where that pid lives (undefined in a file of an older version), its inode (which tells one file from its replacement) and its mtime (the lease). */
interface LockFile {
  readonly pid: number;
  readonly where: Whereabouts | undefined;
  readonly ino: number;
  readonly mtimeMs: number;
}

/** A live holder: its pid, and its host when that pid is not of this machine's pid namespace. */
interface Holder {
  readonly pid: number;
  readonly host?: string;
}

const parseWhereabouts = (line: string | undefined): Whereabouts | undefined => {
  if (line === undefined || line.trim() === '') return undefined;
  try {
    const parsed = JSON.parse(line) as Partial<Record<keyof Whereabouts, unknown>>;
    const orNull = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
    if (typeof parsed.host !== 'string') return undefined;
    return { host: parsed.host, boot: orNull(parsed.boot), pidns: orNull(parsed.pidns), start: orNull(parsed.start) };
  } catch {
    return undefined; // partly written (only without hard links): judged by its pid, as a file of an older version
  }
};

/**
 * PGlite is single-process: two processes opening one data directory would corrupt it.
 * This lock file makes the second one fail clearly instead; a file left by a dead process is taken over.
 *
 * The file holds the pid on line 1 (what older versions wrote and read) and, on line 2, where
 * that pid means something (host, boot, pid namespace) and which process it is (its start time).
 * A holder in this host's boot and pid namespace is live while its pid runs and started when
 * recorded (so a pid reused after a crash, or this very pid in a restarted container, is stale).
 * Any other holder — another container, pod or machine sharing the volume, whose pid means
 * nothing here — holds a lease: it renews the file's mtime every few seconds while it runs,
 * and counts as live until the lease is LEASE_STALE_MS old. A file of an older version (a pid
 * alone) is judged by its pid, as that version did.
 *
 * The file appears with its contents already in it (written to a file of this process's own,
 * then hard-linked into place, which fails if the lock exists), so no other process can read it
 * empty and take it for a dead one's. A dead process's file is removed under a takeover guard
 * (see #removeStale): of processes taking one stale lock over at once, exactly one gets it.
 */
export class EmbeddedLock {
  readonly #file: string;
  readonly #self: Identity;
  readonly #renewEveryMs: number;
  /** The inode of the lock file this lock created, while it holds it. */
  #ino: number | undefined;
  readonly #every: Every;
  /** Stops the renewal of the lease, while this lock holds it. */
  #stopRenewal: (() => void) | undefined;
  #renewing = false;

  constructor(
    private readonly dataDir: string,
    self: LockIdentity = { pid: process.pid, isAlive: isProcessAlive },
    options: { readonly renewEveryMs?: number; readonly every?: Every } = {},
  ) {
    this.#file = join(dataDir, 'embedded.pid');
    this.#self = { ...thisMachine(), ...self } as Identity;
    this.#renewEveryMs = options.renewEveryMs ?? RENEW_EVERY_MS;
    this.#every = options.every ?? everyUnref;
  }

  /** The pid holding the lock, or null when nobody alive holds it. */
  async holder(): Promise<number | null> {
    const file = await this.#read(this.#file);
    return file === null ? null : (this.#liveOther(file)?.pid ?? null);
  }

  async acquire(): Promise<void> {
    await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    const mine = join(this.dataDir, `embedded.pid.${this.#self.pid}.${randomUUID()}`);
    await writeFile(mine, this.#contents(), { flag: 'wx', mode: 0o600 });
    // Long enough for a takeover guard left by a process that died holding it to turn stale.
    const giveUpAt = Date.now() + GUARD_STALE_MS + 2_000;
    try {
      while (Date.now() < giveUpAt) {
        try {
          await link(mine, this.#file);
          return this.#hold((await stat(mine)).ino);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          // A file system without hard links (some network or FUSE mounts): created in place,
          // briefly empty (a process reading it then takes it for a dead one's, as before).
          if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') {
            const ino = await this.#createInPlace();
            if (ino !== null) return this.#hold(ino);
          } else if (code !== 'EEXIST') throw error;
        }
        const found = await this.#read(this.#file);
        if (found === null) continue; // released meanwhile: try again
        const holder = this.#liveOther(found);
        if (holder !== null) throw new EmbeddedDatabaseBusy(holder.pid, this.dataDir, this.#file, holder.host);
        await this.#removeStale(found);
      }
    } finally {
      await unlink(mine).catch(() => undefined);
    }
    throw new Error(`Could not lock the embedded database in ${this.dataDir}: other processes kept taking the lock file over`);
  }

  /** The lock file's contents: the pid, then where it lives. */
  #contents(): string {
    const { host, boot, pidns, pid, startOf } = this.#self;
    const where: Whereabouts = { host, boot, pidns, start: startOf(pid) };
    return `${pid}\n${JSON.stringify(where)}\n`;
  }

  /** The lock file made the way of a file system without hard links; its inode, null when one exists. */
  async #createInPlace(): Promise<number | null> {
    try {
      await writeFile(this.#file, this.#contents(), { flag: 'wx', mode: 0o600 });
      return (await stat(this.#file)).ino;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return null;
    }
  }

  /** Holds the lock file of inode `ino`: renews its lease until released. */
  #hold(ino: number): void {
    this.#ino = ino;
    this.#stopRenewal?.();
    this.#stopRenewal = this.#every(() => void this.#renew(), this.#renewEveryMs);
  }

  /** Sets the lock file's mtime to now, if it is still this lock's. */
  async #renew(): Promise<void> {
    if (this.#renewing) return;
    this.#renewing = true;
    try {
      const handle = await open(this.#file, 'r');
      try {
        const { ino } = await handle.stat();
        if (ino === this.#ino) {
          const now = new Date();
          await handle.utimes(now, now);
        }
      } finally {
        await handle.close();
      }
    } catch {
      // gone or unreadable: nothing to renew (a holder that lost its file cannot get it back)
    } finally {
      this.#renewing = false;
    }
  }

  async release(): Promise<void> {
    this.#stopRenewal?.();
    this.#stopRenewal = undefined;
    const ours = this.#ino;
    this.#ino = undefined;
    const file = await this.#read(this.#file);
    // Its pid and, when this lock made it, its inode: another container's holder may have the same pid.
    if (file?.pid === this.#self.pid && (ours === undefined || file.ino === ours)) await unlink(this.#file).catch(() => undefined);
  }

  /** The live holder of `file` other than this process, or null when it is stale. */
  #liveOther(file: LockFile): Holder | null {
    const { pid, where } = file;
    if (!Number.isInteger(pid) || pid <= 0) return null;
    const self = this.#self;
    // A file of an older version: its pid alone, judged as that version did.
    if (where === undefined) return pid !== self.pid && self.isAlive(pid) ? { pid } : null;
    // Unknown facts match only where the system has none (not Linux): a Linux container that cannot read them holds a lease.
    const same = (theirs: string | null, ours: string | null): boolean => theirs === ours && (ours !== null || process.platform !== 'linux');
    if (where.host === self.host && same(where.boot, self.boot) && same(where.pidns, self.pidns)) {
      if (pid === self.pid || !self.isAlive(pid)) return null;
      const start = where.start === null ? null : self.startOf(pid);
      return start !== null && start !== where.start ? null : { pid }; // another process under a reused pid: stale
    }
    const age = Date.now() - file.mtimeMs;
    // This host rebooted since the holder last renewed its lease (long enough ago that one on
    // another machine of the same name would have renewed it since): the holder died with the boot.
    const rebooted =
      where.host === self.host &&
      where.boot !== null &&
      self.boot !== null &&
      where.boot !== self.boot &&
      file.mtimeMs < self.bootedAt &&
      Date.now() - self.bootedAt > 2 * RENEW_EVERY_MS;
    return rebooted || age > LEASE_STALE_MS ? null : { pid, host: where.host };
  }

  /** The file's contents, inode and mtime, read through one handle (so all are of the same file); null when there is none. */
  async #read(path: string): Promise<LockFile | null> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(path, 'r');
    } catch {
      return null;
    }
    try {
      const { ino, mtimeMs } = await handle.stat();
      const [first = '', second] = (await handle.readFile('utf8')).split('\n');
      return { pid: Number(first.trim() || Number.NaN), where: parseWhereabouts(second), ino, mtimeMs };
    } finally {
      await handle.close();
    }
  }

  /**
   * Removes the stale lock `seen` unless it was replaced or renewed since. Only a process holding
   * the takeover guard removes a lock file, and a new one only appears where there is none, so the
   * file read under the guard is still `seen` exactly when its inode is (and its lease is unrenewed
   * when its mtime is). A guard left by a process that died while holding it (it holds it for a
   * few milliseconds) is cleared.
   */
  async #removeStale(seen: LockFile): Promise<void> {
    const guard = join(this.dataDir, 'embedded.pid.takeover');
    try {
      await writeFile(guard, String(this.#self.pid), { flag: 'wx', mode: 0o600 });
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
      if (now !== null && now.ino === seen.ino && now.mtimeMs === seen.mtimeMs) await unlink(this.#file).catch(() => undefined);
    } finally {
      await unlink(guard).catch(() => undefined);
    }
  }
}
