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

/** Opens `path` on the host, flushes it and closes it; 0, or EIO when the system refused. */
const flushPath = (path: string, flush: Flush): number => {
  try {
    const fd = openSync(path, 'r');
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
 * Flushes what one stream holds to the disk; 0, or EIO when the system refused. A file is
 * flushed through its own descriptor. A directory has none in NODEFS: it is opened on the host
 * by its path (`realPath`), flushed and closed. PostgreSQL flushes a directory after creating or
 * renaming a file in it (a new WAL segment, the files a checkpoint rewrites, the data directory
 * at recovery), so that the new name is on the disk too: without it, a power loss can leave a
 * flushed file under no name.
 */
export const flushFile = (stream: NodefsStream, realPath: (node: unknown) => string, flush: Flush = fsyncSync): number => {
  if (stream.nfd === undefined) return flushPath(realPath(stream.node), flush);
  try {
    flush(stream.nfd);
    return 0;
  } catch {
    return EIO;
  }
};

/**
 * The flushes PostgreSQL asks for while the embedded database starts, carried out together, each
 * file once. After a crash (the process killed, the machine stopped), PostgreSQL's start flushes
 * every file of the data directory twice over — a pass that only asks the system to begin
 * writing, then the flushes proper — and then replays the log: about 2 200 flushes of 1 100
 * files for a fresh database, each a round trip to the disk. Carried out here, each file is
 * flushed once (bench/README.md, "Measurements behind the code").
 *
 * The order PostgreSQL relies on is kept: what it asked to flush is on the disk before any file
 * changes next (a write, a new file or directory, a rename, a removal, a truncation) and before
 * the answer to the first query, whose `syncToFs` ends the start (DurableNodeFS): from then on
 * each flush is carried out when asked, as a commit needs. In between, PostgreSQL only reads, and
 * nobody is answered. A flush that fails fails the change or the query that waits for it, and
 * every later one: the database is not used on a disk that refused a flush.
 */
export class StartFlushes {
  readonly #flush: Flush;
  /** Host paths asked to be flushed and not flushed yet. */
  readonly #pending = new Set<string>();
  #starting = true;
  #failed = false;

  // No parameter property: the database's thread loads this file with types stripped only.
  constructor(flush: Flush = fsyncSync) {
    this.#flush = flush;
  }

  /** True until `end`: a flush asked meanwhile is recorded (`defer`), not carried out. */
  get starting(): boolean {
    return this.#starting;
  }

  /** Records a flush of the file at `path`, asked while the database starts. */
  defer(path: string): void {
    this.#pending.add(path);
  }

  /** Flushes what was recorded: 0, or EIO when a flush failed (now or before). */
  settle(): number {
    if (this.#failed) return EIO;
    if (this.#pending.size === 0) return 0;
    for (const path of this.#pending) {
      if (flushPath(path, this.#flush) !== 0) {
        this.#failed = true;
        return EIO;
      }
      this.#pending.delete(path);
    }
    return 0;
  }

  /** The start is over: flushes what was recorded (0 or EIO, as settle), and each later flush when asked. */
  end(): number {
    this.#starting = false;
    return this.settle();
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
    /** The error an operation throws for Emscripten to give PostgreSQL its errno. */
    readonly ErrnoError: new (
      errno: number,
    ) => Error;
  };
}

/** NODEFS's operations on a directory's entries or a file's attributes that change the disk. */
const NODE_CHANGES = ['mknod', 'rename', 'unlink', 'rmdir', 'symlink', 'setattr'] as const;

/**
 * Gives Emscripten's NODEFS the `fsync` it lacks, so that a flush PostgreSQL asks for reaches the
 * disk. With `start`, the flushes asked while the database starts are recorded there, and every
 * operation that changes the disk first has them carried out (StartFlushes).
 */
export const addFsync = (module: EmscriptenModule, flush: Flush = fsyncSync, start?: StartFlushes): void => {
  const nodefs = module.FS.filesystems.NODEFS;
  const realPath = (node: unknown): string => nodefs.realPath(node);
  nodefs.stream_ops.fsync = (stream) => {
    if (!start?.starting) return flushFile(stream, realPath, flush);
    start.defer(realPath(stream.node));
    return 0;
  };
  if (start === undefined) return;
  const settledFirst = (change: FsOperation | undefined): FsOperation | undefined =>
    change &&
    function (this: unknown, ...args: never[]) {
      if (start.settle() !== 0) throw new module.FS.ErrnoError(EIO);
      return change.apply(this, args);
    };
  nodefs.stream_ops.write = settledFirst(nodefs.stream_ops.write);
  for (const name of NODE_CHANGES) nodefs.node_ops[name] = settledFirst(nodefs.node_ops[name]);
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
    this.#start = new StartFlushes(flush);
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
   * PGlite calls it after every query, before it answers (the first is PGlite's own, at the end
   * of its start): it ends the database's start, whose flushes are then carried out (StartFlushes).
   * With PGlite's `relaxedDurability`, which the service never sets, it would answer first.
   */
  override async syncToFs(_relaxedDurability?: boolean): Promise<void> {
    if (this.#start.end() !== 0) throw new Error('the disk refused to flush the embedded database (EIO)');
  }

  /** Nothing PostgreSQL asked to flush is left undone when the database closes, even one that never finished starting. */
  override async closeFs(): Promise<void> {
    this.#start.end();
    await super.closeFs();
  }
}
