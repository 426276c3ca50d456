import { execFileSync } from 'node:child_process';
import { closeSync, fsyncSync, openSync, readdirSync, readSync } from 'node:fs';
import { release as osRelease } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/**
 * Settings that make the embedded PostgreSQL flush what it commits. PGlite starts PostgreSQL with
 * `-F` (fsync off), and in its WebAssembly runtime `fdatasync` (PostgreSQL's default way of
 * flushing the WAL on Linux) does nothing: only `fsync` reaches the file system, through
 * DurableNodeFS. Given after PGlite's own start parameters, they override `-F`.
 */
export const DURABLE_SETTINGS: Readonly<Record<string, string>> = { fsync: 'on', wal_sync_method: 'fsync' };

/** PGlite's own start parameters, then `settings`, then DURABLE_SETTINGS (which override `-F`). */
export const durableStartParams = (settings: Readonly<Record<string, string>> = {}): string[] => [
  ...PGlite.defaultStartParams,
  ...Object.entries({ ...settings, ...DURABLE_SETTINGS }).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
];

/** WASI's errno for an I/O error: what PostgreSQL sees when a flush fails (it then stops, as on a server). */
const EIO = 29;

/** An open file or directory of Emscripten's NODEFS: `nfd` is the Node.js file descriptor behind a file (a directory has none). */
interface NodefsStream {
  readonly nfd?: number;
  readonly node?: unknown;
}

/** Flushes one file's descriptor to the disk (fs.fsyncSync unless a test gives another). */
export type Flush = (fd: number) => void;

/**
 * Flushes what one stream holds to the disk; 0, or EIO when the system refused. A file is
 * flushed through its own descriptor. A directory has none in NODEFS: it is opened on the host
 * by its path (`realPath`), flushed and closed. PostgreSQL flushes a directory after creating or
 * renaming a file in it (a new WAL segment, the files a checkpoint rewrites, the data directory
 * at recovery), so that the new name is on the disk too: without it, a power loss can leave a
 * flushed file under no name.
 */
export const flushFile = (stream: NodefsStream, realPath: (node: unknown) => string, flush: Flush = fsyncSync): number => {
  try {
    if (stream.nfd !== undefined) {
      flush(stream.nfd);
      return 0;
    }
    const fd = openSync(realPath(stream.node), 'r');
    try {
      flush(fd);
    } finally {
      closeSync(fd);
    }
    return 0;
  } catch {
    return EIO;
  }
};

/**
 * Flushes, at once, everything written to the file systems that hold the data directory: true
 * when done, false when it could not be (the flushes are then made file by file, as asked).
 */
export type FlushAll = () => boolean;

/** Whether a Linux kernel of release `release` (os.release()) reports a failed write-back through syncfs: 5.8 and later. */
export const syncfsReportsErrors = (release: string): boolean => {
  const version = /^(\d+)\.(\d+)/.exec(release);
  if (version === null) return false;
  const [major, minor] = [Number(version[1]), Number(version[2])];
  return major > 5 || (major === 5 && minor >= 8);
};

/**
 * Linux's `syncfs` on the file systems of `dataDir`, its `pg_wal` and its tablespaces (which an
 * operator may have put elsewhere: PostgreSQL's own syncfs covers the same), through GNU
 * coreutils' `sync -f` (Node.js has no binding for it): what PostgreSQL does after a crash with
 * `recovery_init_sync_method = syncfs`. Only where a failed write-back is reported, as a flush
 * of each file reports it: on Linux 5.8 and later (before, syncfs returned 0 whatever happened,
 * the caveat PostgreSQL documents for that setting), and with coreutils' `sync` (BusyBox's may
 * ignore `-f`, run sync() and say nothing). Elsewhere, or when `sync` is missing, refuses or
 * fails, false: the files are then flushed one by one.
 */
export const syncFileSystems = (dataDir: string, release: string = osRelease()): FlushAll => {
  let coreutils: boolean | undefined;
  return () => {
    if (process.platform !== 'linux' || !syncfsReportsErrors(release)) return false;
    try {
      coreutils ??= execFileSync('sync', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).includes('GNU coreutils');
      if (!coreutils) return false;
      const tablespaces = readdirSync(join(dataDir, 'pg_tblspc')).map((name) => join(dataDir, 'pg_tblspc', name));
      execFileSync('sync', ['-f', dataDir, join(dataDir, 'pg_wal'), ...tablespaces], { stdio: 'ignore' });
      return true;
    } catch {
      coreutils ??= false;
      return false;
    }
  };
};

/** pg_control's `state` (an int32 after three fields of 8, 4 and 4 bytes): the cluster was shut down, or shut down while in recovery. */
const CLEAN_STATES = new Set([1, 2]);

/**
 * Whether PostgreSQL will start the data directory as after a crash: its control file says it
 * was not shut down cleanly (what makes PostgreSQL flush every file before its recovery). False
 * for a directory without one (a new database: nothing to recover) or one that cannot be read
 * (PostgreSQL then says why).
 */
export const crashedBefore = (dataDir: string): boolean => {
  let fd: number | undefined;
  try {
    fd = openSync(join(dataDir, 'global', 'pg_control'), 'r');
    const head = Buffer.alloc(20);
    if (readSync(fd, head, 0, 20, 0) < 20) return false;
    // WebAssembly is little-endian: PGlite writes its control file so on every host.
    return !CLEAN_STATES.has(head.readInt32LE(16));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
};

/**
 * The files flushed while the embedded database starts, for as long as nothing on the disk has
 * changed since. After a crash (the process killed, the machine stopped), PostgreSQL's start asks
 * to flush every file of the data directory twice — a pass that only asks the system to begin
 * writing (`pg_flush_data`, an `fsync` in PGlite's runtime), then the flushes proper — reading
 * and writing nothing in between: about 2 200 flushes of 1 100 files for a fresh database, each a
 * round trip to the disk, the second finding nothing left to write (bench/README.md,
 * "Measurements behind the code").
 *
 * A flush of a file in the set is answered at once; every operation that changes the disk (a
 * write, a new file or directory, a rename, a removal, a truncation) empties it first, so a file
 * is flushed again as soon as anything may have changed. Nothing is put off: a file PostgreSQL
 * asks to flush is on the disk when the flush returns, as before. The start ends at the first
 * query's `syncToFs` (DurableNodeFS); from then on every flush is carried out as asked.
 *
 * With `flushAll` (given for a start after a crash), a flush asked after RUN_BEFORE_FLUSH_ALL
 * others in a row, nothing changed in between, flushes the whole file system instead (FlushAll).
 * Every file is on the disk then, and each flush is answered at once until the disk changes.
 * Runs of flushes are what a recovery asks for: its pass over every file of the data directory
 * (1 136 of them), then its checkpoint's (130, after its writes). One flush of the disk instead of
 * one per file: 1 288 `fsync` calls took 0.5–0.9 s of the start on the 2-core machine
 * (bench/README.md, "Measurements behind the code"). Not for a short run (the start flushes its
 * lock file alone, and a few files two or three at a time): a flush of the disk costs a process
 * of its own. Once the database has started, never (the disk may hold others' files, which a flush of it writes too); nor after it failed
 * once: the files are then flushed one by one, as before.
 */
/** Files flushed one by one in a row before the rest of the run is flushed as the whole disk. */
export const RUN_BEFORE_FLUSH_ALL = 8;

export class StartFlushes {
  /** Host paths flushed since the disk last changed. */
  readonly #flushed = new Set<string>();
  /** Undefined when not given, or once it failed. */
  #flushAll: FlushAll | undefined;
  #starting = true;
  /** The whole disk was flushed and nothing has changed since. */
  #all = false;

  constructor(flushAll?: FlushAll) {
    this.#flushAll = flushAll;
  }

  /** True until `end`. */
  get starting(): boolean {
    return this.#starting;
  }

  /** Whether the file at `path` was flushed since the disk last changed. */
  has(path: string): boolean {
    return this.#all || this.#flushed.has(path);
  }

  /** The file at `path` is on the disk. */
  flushed(path: string): void {
    this.#flushed.add(path);
  }

  /**
   * Asked before a file is flushed: flushes the whole disk instead when `flushAll` was given (and
   * never failed) and RUN_BEFORE_FLUSH_ALL files were flushed since the disk last changed. True
   * when every file is on the disk (flushed whole, nothing changed since).
   */
  flushedAll(): boolean {
    if (!this.#all && this.#starting && this.#flushAll !== undefined && this.#flushed.size >= RUN_BEFORE_FLUSH_ALL) {
      this.#all = this.#flushAll();
      if (!this.#all) this.#flushAll = undefined;
    }
    return this.#all;
  }

  /** Something on the disk is about to change: every file must be flushed again. */
  changed(): void {
    this.#all = false;
    this.#flushed.clear();
  }

  /** The database has started. */
  end(): void {
    this.#starting = false;
    this.#all = false;
    this.#flushed.clear();
  }
}

type FsOperation = (...args: never[]) => unknown;

interface EmscriptenModule {
  readonly FS: {
    readonly filesystems: {
      readonly NODEFS: {
        readonly stream_ops: { fsync?: (stream: NodefsStream) => number; write?: FsOperation };
        readonly node_ops: Record<string, FsOperation | undefined>;
        /** The host path of a NODEFS node. */
        realPath(node: unknown): string;
      };
    };
  };
}

/** NODEFS's operations on a directory's entries or a file's attributes that change the disk. */
const NODE_CHANGES = ['mknod', 'rename', 'unlink', 'rmdir', 'symlink', 'setattr'] as const;

/**
 * Gives Emscripten's NODEFS the `fsync` it lacks, so that a flush PostgreSQL asks for reaches the
 * disk. With `start`, while the database starts, a file flushed since the disk last changed is not
 * flushed again, and every operation that changes the disk says so first (StartFlushes).
 */
export const addFsync = (module: EmscriptenModule, flush: Flush = fsyncSync, start?: StartFlushes): void => {
  const nodefs = module.FS.filesystems.NODEFS;
  const realPath = (node: unknown): string => nodefs.realPath(node);
  nodefs.stream_ops.fsync = (stream) => {
    if (!start?.starting) return flushFile(stream, realPath, flush);
    const path = realPath(stream.node);
    if (start.has(path) || start.flushedAll()) return 0;
    const result = flushFile(stream, realPath, flush);
    if (result === 0) start.flushed(path);
    return result;
  };
  if (start === undefined) return;
  const saidFirst = (change: FsOperation | undefined): FsOperation | undefined =>
    change &&
    function (this: unknown, ...args: never[]) {
      start.changed();
      return change.apply(this, args);
    };
  nodefs.stream_ops.write = saidFirst(nodefs.stream_ops.write);
  for (const name of NODE_CHANGES) nodefs.node_ops[name] = saidFirst(nodefs.node_ops[name]);
};

/**
 * PGlite's NodeFS (the data directory as files of the host) whose files can be flushed. Without
 * it, a committed transaction of the embedded database survives the process being killed (the
 * operating system holds the written pages) but not a power loss or a crash of the system, which
 * can also leave the database unreadable: PostgreSQL's own warning about running with fsync off.
 */
export class DurableNodeFS extends NodeFS {
  /** How a file descriptor is flushed (fs.fsyncSync; a test counts the flushes). */
  readonly #flush: Flush;
  readonly #start: StartFlushes;

  // No parameter property: the database's thread loads this file with types stripped only.
  /** `flushAll`: how the whole disk is flushed at a start after a crash (StartFlushes; a test gives its own). */
  constructor(dataDir: string, flush: Flush = fsyncSync, flushAll: FlushAll = syncFileSystems(dataDir)) {
    super(dataDir);
    this.#flush = flush;
    this.#start = new StartFlushes(crashedBefore(dataDir) ? flushAll : undefined);
  }

  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(pg, opts);
    const preRun = (emscriptenOpts as { preRun?: unknown[] }).preRun ?? [];
    return {
      emscriptenOpts: {
        ...emscriptenOpts,
        preRun: [...preRun, (module: EmscriptenModule) => addFsync(module, this.#flush, this.#start)],
      } as typeof emscriptenOpts,
    };
  }

  /**
   * PGlite calls it after every query, before it answers (the first is PGlite's own, at the end of
   * its start): it ends the database's start (StartFlushes).
   */
  override async syncToFs(_relaxedDurability?: boolean): Promise<void> {
    this.#start.end();
  }
}
