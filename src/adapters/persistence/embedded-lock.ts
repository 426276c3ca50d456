import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { link, mkdir, open, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname, uptime } from 'node:os';
import { join } from 'node:path';
import { type DirectoryIdentity, directoryIdentity } from '../shared/directory-identity.js';

/**
 * Thrown when another live process has the embedded database open. When the lock file was
 * written for another directory (`copiedFrom`: a live process of this machine holds that one),
 * this directory is most likely a copy made with its lock file, and the message says so: naming
 * only the process would send the operator to stop the service that runs on the original.
 */
export class EmbeddedDatabaseBusy extends Error {
  constructor(
    readonly pid: number,
    readonly dataDir: string,
    /** The lock file naming the holder. */
    readonly file: string = join(dataDir, 'embedded.pid'),
    /** The holder's host, when it runs elsewhere (another machine, container or pid namespace): its pid means nothing here. */
    readonly host?: string,
    /** The directory the lock file was written for, when that is not `dataDir` (a copy's lock file). */
    readonly copiedFrom?: string,
  ) {
    super(
      copiedFrom !== undefined
        ? `The embedded database in ${dataDir} looks in use by process ${pid}, but its lock file ${file} was written by that process for ${copiedFrom}: ` +
            `${dataDir} is most likely a copy of that directory, made with its lock file. If process ${pid} runs on ${copiedFrom} only ` +
            `(its "agent gateway listening" log line names its dataDir), remove ${file} and start again; a copy made while that process ran ` +
            'may be inconsistent: copy a stopped DATA_DIR, or a snapshot'
        : `The embedded database in ${dataDir} is in use by process ${pid}` +
            (host === undefined ? ` (lock file ${file})` : ` on host ${host} (lock file ${file}; it is renewed while that process runs)`) +
            ': stop that process first, or give this one another DATA_DIR (one process at a time opens an embedded database)',
    );
    this.name = 'EmbeddedDatabaseBusy';
  }
}

/**
 * The lock file cannot be read by this account (EACCES, EPERM: DATA_DIR or the file is another
 * account's, owner-only): whether a process holds the database cannot be told from here.
 */
export class EmbeddedLockUnreadable extends Error {
  constructor(
    readonly dataDir: string,
    readonly file: string,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(`Cannot read the embedded database's lock file ${file} (${code}): whether a process holds the database cannot be told`, options);
    this.name = 'EmbeddedLockUnreadable';
  }
}

/**
 * Told to the holder when its lock file turned out removed, or replaced by another process's
 * (a takeover after this process was frozen or cut off longer than its lease): another process
 * may have the database open, and this one must stop writing to it.
 */
export class EmbeddedLockLost extends Error {
  constructor(
    readonly dataDir: string,
    readonly file: string,
    /** Whether the lock file was gone or another file stood in its place. */
    readonly how: 'removed' | 'replaced',
  ) {
    super(
      `The embedded database's lock in ${dataDir} was ${how === 'removed' ? 'removed' : 'taken over by another process'} (lock file ${file}): this process no longer holds it`,
    );
    this.name = 'EmbeddedLockLost';
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

/**
 * A lease whose mtime is within this of the reader's clock (either way) looks fresh: its holder
 * counts as live without further ado. One that does not (older, or ahead of this clock) is
 * watched for WATCH_PERIODS renewal periods, and is a dead holder's only if it did not change.
 */
export const LEASE_STALE_MS = 30_000;

/**
 * How many renewal periods a lease that does not look fresh is watched for a renewal: one, plus
 * one of margin for a holder whose timer or file system is slow.
 */
const WATCH_PERIODS = 2;

/** Runs `task` every `ms` until the returned function is called; a test seam (the default neither holds the process up nor lets it exit early). */
export type Every = (task: () => Promise<void>, ms: number) => () => void;

const everyUnref: Every = (task, ms) => {
  const timer = setInterval(() => void task(), ms);
  timer.unref();
  return () => clearInterval(timer);
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const codeOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

export interface EmbeddedLockOptions {
  /** How often the holder renews its lease; a reader assumes a foreign holder renews as often (one constant in production). */
  readonly renewEveryMs?: number;
  /** Schedules the renewal (test seam). */
  readonly every?: Every;
  /** The clock the lease is set and judged by, in ms since the epoch (test seam: another machine's clock, skewed). */
  readonly clock?: () => number;
  /** Told once, at a renewal, when the lock file turned out removed or replaced while this lock held it (never after release). */
  readonly onLost?: (error: EmbeddedLockLost) => void;
  /** Awaited under the takeover guard just before a lock file judged stale is moved away (test seam: a race with its renewal). */
  readonly beforeTakeover?: () => Promise<void>;
}

/** Where the pid on line 1 means something, and which process it is (line 2 of the lock file, JSON). */
interface Whereabouts {
  readonly host: string;
  readonly boot: string | null;
  readonly pidns: string | null;
  readonly start: string | null;
  /**
   * The directory the lock was taken for: its real path (for the message) and its device and
   * inode (`dev:ino`, which tell it from a copy however it is reached: directoryIdentity, the
   * same as the admin socket reports); null in a file of an older version.
   */
  readonly dir: DirectoryIdentity | null;
}

/**
 * The lock file as read: its pid (NaN when it holds none), where that pid lives (undefined in a
 * file of an older version), its text, its inode (which tells one file from its replacement) and
 * its mtime (the lease).
 */
interface LockFile {
  readonly pid: number;
  readonly where: Whereabouts | undefined;
  readonly text: string;
  readonly ino: number;
  readonly mtimeMs: number;
}

/** The lock file this lock created, while it holds it: its inode and its text (unique to it: an inode number is reused once its file is gone). */
interface Held {
  readonly ino: number;
  readonly text: string;
}

/** A live holder: its pid, and its host when that pid is not of this machine's pid namespace. */
interface Holder {
  readonly pid: number;
  readonly host?: string;
}

/**
 * A lock file's holder as judged from one reading: live (`sure`), live only if it renews its
 * lease while watched (a foreign holder whose lease does not look fresh by this clock, which may
 * be skewed from the holder's), or null for a dead one's file.
 */
interface Verdict extends Holder {
  readonly sure: boolean;
}

const parseWhereabouts = (line: string | undefined): Whereabouts | undefined => {
  if (line === undefined || line.trim() === '') return undefined;
  try {
    const parsed = JSON.parse(line) as Partial<Record<keyof Whereabouts, unknown>>;
    const orNull = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
    if (typeof parsed.host !== 'string') return undefined;
    const dir = parsed.dir as { path?: unknown; id?: unknown } | null | undefined;
    const recorded = typeof dir?.path === 'string' && typeof dir.id === 'string' ? { path: dir.path, id: dir.id } : null;
    return { host: parsed.host, boot: orNull(parsed.boot), pidns: orNull(parsed.pidns), start: orNull(parsed.start), dir: recorded };
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
 * nothing here — holds a lease: it renews the file's mtime every few seconds while it runs.
 * Its clock may differ from the reader's, so the mtime's age proves nothing by itself: a lease
 * within LEASE_STALE_MS of the reader's clock counts as live at once, and any other is watched
 * for two renewal periods and taken over only if its mtime did not change meanwhile. A file of
 * an older version (a pid alone) is judged by its pid, as that version did.
 *
 * A holder whose renewal finds its file removed or replaced (it was frozen, or cut off from the
 * volume, long enough to be taken for dead) reports it through `onLost`: it must stop then.
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
  /** The lock file this lock created, while it holds it. */
  #held: Held | undefined;
  readonly #every: Every;
  readonly #clock: () => number;
  readonly #onLost: (error: EmbeddedLockLost) => void;
  readonly #beforeTakeover: (() => Promise<void>) | undefined;
  readonly #guard: string;
  /** Stops the renewal of the lease, while this lock holds it. */
  #stopRenewal: (() => void) | undefined;
  /** The renewal under way, if any. */
  #renewal: Promise<void> | undefined;

  constructor(
    private readonly dataDir: string,
    self: LockIdentity = { pid: process.pid, isAlive: isProcessAlive },
    options: EmbeddedLockOptions = {},
  ) {
    this.#file = join(dataDir, 'embedded.pid');
    this.#guard = join(dataDir, 'embedded.pid.takeover');
    this.#self = { ...thisMachine(), ...self } as Identity;
    this.#renewEveryMs = options.renewEveryMs ?? RENEW_EVERY_MS;
    this.#every = options.every ?? everyUnref;
    this.#clock = options.clock ?? Date.now;
    this.#onLost = options.onLost ?? (() => undefined);
    this.#beforeTakeover = options.beforeTakeover;
  }

  /**
   * The pid holding the lock, or null when nobody alive holds it. Quick: a foreign lease that
   * does not look fresh by this clock counts as free here (acquire watches it before taking it).
   * @throws EmbeddedLockUnreadable when this account may not read the lock file (or DATA_DIR):
   * a server of another account may hold the database, which is not "nobody".
   */
  async holder(): Promise<number | null> {
    return (await this.holding())?.pid ?? null;
  }

  /**
   * holder(), and whether the lock file was written for another directory than this one
   * (`copiedFrom`, that directory's real path): a holder of this machine that holds that one —
   * this directory is most likely a copy made with its lock file (see EmbeddedDatabaseBusy), and
   * what the holder serves (its admin socket) is the original's.
   * @throws EmbeddedLockUnreadable as holder().
   */
  async holding(): Promise<{ readonly pid: number; readonly copiedFrom?: string } | null> {
    const file = await this.#read(this.#file, true);
    const verdict = file === null ? null : this.#judge(file);
    if (file === null || !verdict?.sure) return null;
    const recorded = file.where?.dir;
    if (verdict.host !== undefined || recorded == null) return { pid: verdict.pid };
    const dir = await directoryIdentity(this.dataDir);
    return recorded.id === dir.id ? { pid: verdict.pid } : { pid: verdict.pid, copiedFrom: recorded.path };
  }

  async acquire(): Promise<void> {
    await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    const dir = await directoryIdentity(this.dataDir);
    const nonce = randomUUID();
    const mine = join(this.dataDir, `embedded.pid.${this.#self.pid}.${nonce}`);
    const text = this.#contents(nonce, dir);
    await writeFile(mine, text, { flag: 'wx', mode: 0o600 });
    // Long enough for a takeover guard left by a process that died holding it to turn stale
    // (plus the time spent watching leases).
    let giveUpAt = Date.now() + GUARD_STALE_MS + 2_000;
    /** A foreign lock file watched and found unrenewed: not watched again while it stays so. */
    let unrenewed: LockFile | undefined;
    try {
      while (Date.now() < giveUpAt) {
        try {
          await link(mine, this.#file);
          return this.#hold({ ino: (await stat(mine)).ino, text });
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          // A file system without hard links (some network or FUSE mounts): created in place,
          // briefly empty (a process reading it then takes it for a dead one's, as before).
          if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') {
            const ino = await this.#createInPlace(text);
            if (ino !== null) return this.#hold({ ino, text });
          } else if (code !== 'EEXIST') throw error;
        }
        const found = await this.#read(this.#file);
        if (found === null) continue; // released meanwhile: try again
        const holder = this.#judge(found);
        if (holder?.sure) throw this.#busy(holder, found, dir);
        if (holder !== null && !(unrenewed !== undefined && unrenewed.ino === found.ino && unrenewed.mtimeMs === found.mtimeMs)) {
          const started = Date.now();
          const seen = await this.#watch(found);
          giveUpAt += Date.now() - started;
          if (seen === 'renewed') throw this.#busy(holder, found, dir);
          if (seen === 'replaced') continue;
          unrenewed = found;
        }
        await this.#removeStale(found);
      }
    } finally {
      await unlink(mine).catch(() => undefined);
    }
    throw new Error(`Could not lock the embedded database in ${this.dataDir}: other processes kept taking the lock file over`);
  }

  /** The lock file's contents: the pid, then where it lives, the directory it locks and (`lock`) which acquisition this is. */
  #contents(nonce: string, dir: Whereabouts['dir']): string {
    const { host, boot, pidns, pid, startOf } = this.#self;
    const where: Whereabouts & { readonly lock: string } = { host, boot, pidns, start: startOf(pid), dir, lock: nonce };
    return `${pid}\n${JSON.stringify(where)}\n`;
  }

  /**
   * The refusal for a live `holder` of `file`: a holder of this machine that wrote the file for
   * another directory than this one (`dir`) holds that one, and this is a copy of it made with its
   * lock file (the holder is still refused: whether it uses this directory too cannot be proved).
   */
  #busy(holder: Holder, file: LockFile, dir: NonNullable<Whereabouts['dir']>): EmbeddedDatabaseBusy {
    const recorded = file.where?.dir;
    const copiedFrom = holder.host === undefined && recorded != null && recorded.id !== dir.id ? recorded.path : undefined;
    return new EmbeddedDatabaseBusy(holder.pid, this.dataDir, this.#file, holder.host, copiedFrom);
  }

  /** The lock file made the way of a file system without hard links; its inode, null when one exists. */
  async #createInPlace(text: string): Promise<number | null> {
    try {
      await writeFile(this.#file, text, { flag: 'wx', mode: 0o600 });
      return (await stat(this.#file)).ino;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return null;
    }
  }

  /** Holds the lock file `held`: renews its lease until released or lost. */
  #hold(held: Held): void {
    this.#held = held;
    this.#stopRenewal?.();
    this.#stopRenewal = this.#every(() => this.#renewOnce(), this.#renewEveryMs);
  }

  /** Renews the lease, or joins the renewal under way. */
  #renewOnce(): Promise<void> {
    this.#renewal ??= this.#renew().finally(() => {
      this.#renewal = undefined;
    });
    return this.#renewal;
  }

  /**
   * Sets the lock file's mtime to now if it is still this lock's, and reports the lock lost
   * (once; never after release) when it is gone or another file stands in its place.
   *
   * A renewal and a takeover of the same file never both succeed:
   * - The renewal runs under the takeover guard, as the taker's re-reading and removal do, so
   *   normally one of them runs wholly before the other: a renewal first changes the mtime the
   *   taker judged stale (the taker, re-reading it under the guard, backs off); a takeover first
   *   leaves the renewal no file, or another's (it reports the loss).
   * - The guard can be cleared as stale under a process frozen while holding it (see
   *   #waitOutGuard); without relying on it: the taker moves the file aside (an atomic rename)
   *   and then checks that the moved inode still has the mtime it judged stale, while the holder
   *   sets the mtime through its handle and then checks that its inode is still at the path. If
   *   the renewal's utimes came before the taker's check, the taker sees it and backs off (it
   *   puts the file back); otherwise the holder's check comes after the rename and finds its
   *   file gone. At worst both give up (the holder checked while the file was aside), never both
   *   go on.
   */
  async #renew(): Promise<void> {
    const held = this.#held;
    if (held === undefined) return;
    const holding = (): boolean => this.#held === held;
    let lost: 'removed' | 'replaced' | undefined;
    try {
      if (!(await this.#takeGuard(holding))) return; // released meanwhile
      try {
        lost = await this.#renewUnderGuard(held);
      } finally {
        await unlink(this.#guard).catch(() => undefined);
      }
    } catch {
      // unreadable or unwritable for now: not renewed this time (if the lease lapses and another
      // process takes the lock over, the next renewal finds its file and reports the loss)
    }
    if (lost === undefined || !holding()) return;
    this.#stopRenewal?.();
    this.#stopRenewal = undefined;
    this.#held = undefined;
    this.#onLost(new EmbeddedLockLost(this.dataDir, this.#file, lost));
  }

  /** The renewal proper (under the takeover guard): how the lock was lost, undefined while it is held. */
  async #renewUnderGuard(held: Held): Promise<'removed' | 'replaced' | undefined> {
    const renewed = await this.#atPath(held, async (handle) => {
      const now = new Date(this.#clock());
      await handle.utimes(now, now);
    });
    // Renewed through the handle: the file must still be at its path (see #renew).
    return renewed ?? (await this.#atPath(held));
  }

  /** Whether the lock file at the path is `held` (undefined) or how it is not; `then` runs on it through the handle that read it. */
  async #atPath(held: Held, then?: (handle: Awaited<ReturnType<typeof open>>) => Promise<void>): Promise<'removed' | 'replaced' | undefined> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.#file, 'r');
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return 'removed';
      throw error;
    }
    try {
      if ((await handle.stat()).ino !== held.ino || (await handle.readFile('utf8')) !== held.text) return 'replaced';
      await then?.(handle);
      return undefined;
    } finally {
      await handle.close();
    }
  }

  async release(): Promise<void> {
    this.#stopRenewal?.();
    this.#stopRenewal = undefined;
    const ours = this.#held;
    this.#held = undefined; // a renewal under way now reports nothing
    await this.#renewal;
    if (ours === undefined) return; // never held, released already, or lost
    const file = await this.#read(this.#file);
    // The file this lock created, not one with the same pid (another container's holder may have it).
    if (file !== null && file.ino === ours.ino && file.text === ours.text) await unlink(this.#file).catch(() => undefined);
  }

  /**
   * Watches a foreign lock file whose lease does not look fresh for WATCH_PERIODS renewal
   * periods: `renewed` when its mtime changed (its holder runs, whatever its clock says),
   * `replaced` when the file went or was replaced, `unrenewed` when it stayed as it was.
   */
  async #watch(seen: LockFile): Promise<'renewed' | 'replaced' | 'unrenewed'> {
    const until = Date.now() + WATCH_PERIODS * this.#renewEveryMs;
    const pause = Math.max(1, Math.min(250, this.#renewEveryMs / 4));
    while (Date.now() < until) {
      await sleep(pause);
      const now = await this.#read(this.#file);
      if (now === null || now.ino !== seen.ino) return 'replaced';
      if (now.mtimeMs !== seen.mtimeMs) return 'renewed';
    }
    return 'unrenewed';
  }

  /** The holder of `file` other than this process, or null when it is stale (see Verdict). */
  #judge(file: LockFile): Verdict | null {
    const { pid, where } = file;
    if (!Number.isInteger(pid) || pid <= 0) return null;
    const self = this.#self;
    // A file of an older version: its pid alone, judged as that version did.
    if (where === undefined) return pid !== self.pid && self.isAlive(pid) ? { pid, sure: true } : null;
    // Unknown facts match only where the system has none (not Linux): a Linux container that cannot read them holds a lease.
    const same = (theirs: string | null, ours: string | null): boolean => theirs === ours && (ours !== null || process.platform !== 'linux');
    if (where.host === self.host && same(where.boot, self.boot) && same(where.pidns, self.pidns)) {
      if (pid === self.pid || !self.isAlive(pid)) return null;
      const start = where.start === null ? null : self.startOf(pid);
      return start !== null && start !== where.start ? null : { pid, sure: true }; // another process under a reused pid: stale
    }
    const now = this.#clock();
    // This host rebooted since the holder last renewed its lease (long enough ago that one on
    // another machine of the same name would have renewed it since): the holder died with the boot.
    const rebooted =
      where.host === self.host &&
      where.boot !== null &&
      self.boot !== null &&
      where.boot !== self.boot &&
      file.mtimeMs < self.bootedAt &&
      now - self.bootedAt > 2 * RENEW_EVERY_MS;
    if (rebooted) return null;
    // The holder set the mtime by its own clock: within the stale bound of ours it looks fresh;
    // otherwise (older, or ahead of our clock) only its changing tells (acquire watches it).
    return { pid, host: where.host, sure: Math.abs(now - file.mtimeMs) <= LEASE_STALE_MS };
  }

  /**
   * The file's contents, inode and mtime, read through one handle (so all are of the same file);
   * null when there is none — or when it cannot be read, unless `strict` (then EmbeddedLockUnreadable).
   */
  async #read(path: string, strict = false): Promise<LockFile | null> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      const code = codeOf(error);
      if (strict && (code === 'EACCES' || code === 'EPERM')) throw new EmbeddedLockUnreadable(this.dataDir, path, code, { cause: error });
      return null;
    }
    try {
      const { ino, mtimeMs } = await handle.stat();
      const text = await handle.readFile('utf8');
      const [first = '', second] = text.split('\n');
      return { pid: Number(first.trim() || Number.NaN), where: parseWhereabouts(second), text, ino, mtimeMs };
    } finally {
      await handle.close();
    }
  }

  /**
   * Removes the stale lock `seen` unless it was replaced or renewed since. Only a process holding
   * the takeover guard removes a lock file or renews one, and a new one only appears where there
   * is none, so the file read under the guard is still `seen` exactly when its inode is (and its
   * lease is unrenewed when its mtime is). It is moved aside before it is removed, and checked
   * again there: a renewal that slipped in anyway (the guard cleared as stale under a frozen
   * holder of it) is then seen, and the file put back (see #renew). A guard left by a process
   * that died while holding it (it holds it for a few milliseconds) is cleared.
   */
  async #removeStale(seen: LockFile): Promise<void> {
    if (!(await this.#tryGuard())) {
      await this.#waitOutGuard();
      return;
    }
    try {
      const now = await this.#read(this.#file);
      if (now === null || now.ino !== seen.ino || now.mtimeMs !== seen.mtimeMs) return;
      await this.#beforeTakeover?.();
      const aside = join(this.dataDir, `embedded.pid.stale.${randomUUID()}`);
      try {
        await rename(this.#file, aside);
      } catch {
        return; // gone meanwhile
      }
      const moved = await stat(aside).catch(() => null);
      if (moved === null || moved.ino !== seen.ino || moved.mtimeMs !== seen.mtimeMs) {
        // Renewed (or replaced) after all: back in place, unless a process created one meanwhile
        // (then the holder of the file moved aside finds it gone at its next renewal).
        await link(aside, this.#file).catch(() => undefined);
      }
      await unlink(aside).catch(() => undefined);
    } finally {
      await unlink(this.#guard).catch(() => undefined);
    }
  }

  /** Creates the takeover guard; false when another process holds it. */
  async #tryGuard(): Promise<boolean> {
    try {
      await writeFile(this.#guard, String(this.#self.pid), { flag: 'wx', mode: 0o600 });
      return true;
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error;
      return false;
    }
  }

  /** Takes the takeover guard, waiting while another process holds it; false when `wanted` no longer holds. */
  async #takeGuard(wanted: () => boolean): Promise<boolean> {
    while (wanted()) {
      if (await this.#tryGuard()) return true;
      await this.#waitOutGuard();
    }
    return false;
  }

  /** Waits a moment for the guard's holder, or clears the guard when a process died holding it. */
  async #waitOutGuard(): Promise<void> {
    const since = await stat(this.#guard).then(
      (found) => Date.now() - found.mtimeMs,
      () => 0,
    );
    if (since > GUARD_STALE_MS) await unlink(this.#guard).catch(() => undefined);
    else await sleep(10);
  }
}
