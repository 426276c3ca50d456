import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * A file an operator names (`.env`, the trigger and schedule files, the chat's system prompt),
 * read whole but bounded: its bytes, or why they are not read.
 * - `directory`; `pipe`: a FIFO or a socket, whose reading waits for a writer for good (it held
 *   start-up, every CLI command or every chat answer) — both told from the open file, which is
 *   opened without blocking;
 * - `too-large`: more than `maxBytes` (a log or a dump named by mistake; a device such as
 *   /dev/zero, which never ends, stops there). A device that ends (/dev/null, mounted over a
 *   baked-in `.env` to blank it) is read as a file is.
 */
export type BoundedFile =
  | { readonly kind: 'bytes'; readonly bytes: Buffer }
  | { readonly kind: 'directory' }
  | { readonly kind: 'pipe' }
  /** `size`: the size the file had when opened, when that was already too large. */
  | { readonly kind: 'too-large'; readonly size?: number };

/** What the open file is, when it is not read; undefined when it is. */
const refusal = (found: Stats, maxBytes: number): BoundedFile | undefined => {
  if (found.isDirectory()) return { kind: 'directory' };
  if (found.isFIFO() || found.isSocket()) return { kind: 'pipe' };
  return found.size > maxBytes ? { kind: 'too-large', size: found.size } : undefined;
};

/** The first buffer: the size the file has, plus one byte to see it grew (a device tells 0). */
const CHUNK = 64 * 1024;
const nextSize = (found: Stats, read: number, maxBytes: number): number => Math.min(maxBytes + 1 - read, Math.max(found.size + 1 - read, CHUNK));

/** The chunks read as one file, or `too-large` past `maxBytes` (a file growing meanwhile is still bounded). */
const whole = (chunks: readonly Buffer[], read: number, maxBytes: number): BoundedFile =>
  read > maxBytes ? { kind: 'too-large' } : { kind: 'bytes', bytes: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, read) };

/** Reads `path` as BoundedFile says; throws as open and read do (ENOENT, EACCES…). */
export const readBoundedFile = async (path: string, maxBytes: number): Promise<BoundedFile> => {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const found = await handle.stat();
    const refused = refusal(found, maxBytes);
    if (refused !== undefined) return refused;
    const chunks: Buffer[] = [];
    let read = 0;
    while (read <= maxBytes) {
      const chunk = Buffer.allocUnsafe(nextSize(found, read, maxBytes));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      read += bytesRead;
    }
    return whole(chunks, read, maxBytes);
  } finally {
    await handle.close();
  }
};

/** readBoundedFile for a caller that cannot wait (the configuration read before anything starts). */
export const readBoundedFileSync = (path: string, maxBytes: number): BoundedFile => {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const found = fstatSync(fd);
    const refused = refusal(found, maxBytes);
    if (refused !== undefined) return refused;
    const chunks: Buffer[] = [];
    let read = 0;
    while (read <= maxBytes) {
      const chunk = Buffer.allocUnsafe(nextSize(found, read, maxBytes));
      const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      read += bytesRead;
    }
    return whole(chunks, read, maxBytes);
  } finally {
    closeSync(fd);
  }
};
