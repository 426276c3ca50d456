import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';

/**
 * Reading and writing files the agent controls (its worktree) without letting it stall the
 * service. A plain open() of a FIFO blocks until another end opens it, and it runs on one of
 * libuv's few threadpool threads (4 by default), which every file read and DNS lookup of the
 * service shares: four such opens and the service hangs. So files are opened non-blocking
 * (O_NONBLOCK: a FIFO's open returns at once), not through a symbolic link as their last part
 * (O_NOFOLLOW), and anything but a regular file (a FIFO, a device, a socket, a directory) is
 * refused by what fstat says of the opened handle. A read takes at most its limit, into a buffer
 * of that size: a huge (or sparse) file is never read whole.
 */

/** Thrown for a path that is not a regular file (or is a symbolic link): its message names the file and what it is. */
export class NotRegularFile extends Error {
  constructor(
    readonly label: string,
    /** What it is instead: `a FIFO (named pipe)`, `a directory`, `a symbolic link`… */
    readonly what: string,
  ) {
    super(`${label} is ${what}, not a regular file: it is not read or written`);
  }
}

const kind = (stats: Stats): string => {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
};

const refusal = (label: string, what: string): NotRegularFile => new NotRegularFile(label, what);

/** Opens `path` with `flags` (plus O_NONBLOCK and O_NOFOLLOW); a handle of anything but a regular file is closed and refused. */
const openRegular = async (path: string, flags: number, label: string): Promise<FileHandle> => {
  let handle: FileHandle;
  try {
    handle = await open(path, flags | constants.O_NONBLOCK | constants.O_NOFOLLOW, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ELOOP: a link (O_NOFOLLOW); ENXIO: a FIFO without a reader opened to write, or a socket; EISDIR: a directory opened to write.
    if (code === 'ELOOP' || code === 'ENXIO' || code === 'EISDIR') {
      const stats = await lstat(path).catch(() => undefined);
      throw refusal(label, stats === undefined ? `not a regular file (${code})` : kind(stats));
    }
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw refusal(label, kind(stats));
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
};

/** The first `limit` bytes at most of the regular file `path` (UTF-8; a character the limit cut through is left out). */
export const readAtMost = async (path: string, limit: number, label: string = path): Promise<{ readonly text: string; readonly truncated: boolean }> => {
  const handle = await openRegular(path, constants.O_RDONLY, label);
  try {
    // One byte more than the limit tells whether there was more.
    const buffer = Buffer.alloc(limit + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const truncated = filled > limit;
    const text = new TextDecoder('utf-8', { fatal: false }).decode(buffer.subarray(0, Math.min(filled, limit)), { stream: truncated });
    return { text, truncated };
  } finally {
    await handle.close();
  }
};

/**
 * Creates or replaces the regular file `path` with `content`. `exclusive`: it must not exist
 * (O_EXCL). A FIFO, device, directory or link in its place is refused, never written through.
 */
export const writeRegular = async (
  path: string,
  content: string,
  { label = path, exclusive = false }: { readonly label?: string; readonly exclusive?: boolean } = {},
): Promise<void> => {
  const flags = constants.O_WRONLY | constants.O_CREAT | (exclusive ? constants.O_EXCL : constants.O_TRUNC);
  const handle = await openRegular(path, flags, label);
  try {
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
};
