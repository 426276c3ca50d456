import { fsyncSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/**
 * Settings that make the embedded PostgreSQL flush what it commits. PGlite starts PostgreSQL with
 * `-F` (fsync off), and in its WebAssembly runtime `fdatasync` (PostgreSQL's default way of
 * flushing the WAL on Linux) does nothing: only `fsync` reaches the file system, through
 * DurableNodeFS. Given after PGlite's own start parameters, they override `-F`.
 */
export const DURABLE_SETTINGS: Readonly<Record<string, string>> = { fsync: 'on', wal_sync_method: 'fsync' };

/** WASI's errno for an I/O error: what PostgreSQL sees when a flush fails (it then stops, as on a server). */
const EIO = 29;

/** An open file of Emscripten's NODEFS: `nfd` is the Node.js file descriptor behind it (none for a directory). */
interface NodefsStream {
  readonly nfd?: number;
}

/** Flushes one file to the disk; 0, or EIO when the system refused. */
export const flushFile = (stream: NodefsStream, flush: (fd: number) => void = fsyncSync): number => {
  if (stream.nfd === undefined) return 0;
  try {
    flush(stream.nfd);
    return 0;
  } catch {
    return EIO;
  }
};

interface EmscriptenModule {
  readonly FS: { readonly filesystems: { readonly NODEFS: { readonly stream_ops: { fsync?: (stream: NodefsStream) => number } } } };
}

/** Gives Emscripten's NODEFS the `fsync` it lacks, so that a flush PostgreSQL asks for reaches the disk. */
export const addFsync = (module: EmscriptenModule, flush: (fd: number) => void = fsyncSync): void => {
  module.FS.filesystems.NODEFS.stream_ops.fsync = (stream) => flushFile(stream, flush);
};

/**
 * PGlite's NodeFS (the data directory as files of the host) whose files can be flushed. Without
 * it, a committed transaction of the embedded database survives the process being killed (the
 * operating system holds the written pages) but not a power loss or a crash of the system, which
 * can also leave the database unreadable: PostgreSQL's own warning about running with fsync off.
 */
export class DurableNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(pg, opts);
    const preRun = (emscriptenOpts as { preRun?: unknown[] }).preRun ?? [];
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...preRun, (module: EmscriptenModule) => addFsync(module)] } as typeof emscriptenOpts };
  }
}
