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

interface EmscriptenModule {
  readonly FS: {
    readonly filesystems: {
      readonly NODEFS: {
        readonly stream_ops: { fsync?: (stream: NodefsStream) => number };
        /** The host path of a NODEFS node. */
        realPath(node: unknown): string;
      };
    };
  };
}

/** Gives Emscripten's NODEFS the `fsync` it lacks, so that a flush PostgreSQL asks for reaches the disk. */
export const addFsync = (module: EmscriptenModule, flush: Flush = fsyncSync): void => {
  const nodefs = module.FS.filesystems.NODEFS;
  nodefs.stream_ops.fsync = (stream) => flushFile(stream, (node) => nodefs.realPath(node), flush);
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

  // No parameter property: the database's thread loads this file with types stripped only.
  constructor(dataDir: string, flush: Flush = fsyncSync) {
    super(dataDir);
    this.#flush = flush;
  }

  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(pg, opts);
    const preRun = (emscriptenOpts as { preRun?: unknown[] }).preRun ?? [];
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...preRun, (module: EmscriptenModule) => addFsync(module, this.#flush)] } as typeof emscriptenOpts };
  }
}
