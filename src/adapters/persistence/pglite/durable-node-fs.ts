import { closeSync, fsyncSync, openSync } from 'node:fs';
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
 */
export class StartFlushes {
  /** Host paths flushed since the disk last changed. */
  readonly #flushed = new Set<string>();
  #starting = true;

  /** True until `end`. */
  get starting(): boolean {
    return this.#starting;
  }

  /** Whether the file at `path` was flushed since the disk last changed. */
  has(path: string): boolean {
    return this.#flushed.has(path);
  }

  /** The file at `path` is on the disk. */
  flushed(path: string): void {
    this.#flushed.add(path);
  }

  /** Something on the disk is about to change: every file must be flushed again. */
  changed(): void {
    this.#flushed.clear();
  }

  /** The database has started. */
  end(): void {
    this.#starting = false;
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
    if (start.has(path)) return 0;
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
  constructor(dataDir: string, flush: Flush = fsyncSync) {
    super(dataDir);
    this.#flush = flush;
    this.#start = new StartFlushes();
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
