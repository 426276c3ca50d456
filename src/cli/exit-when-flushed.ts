import type { Writable } from 'node:stream';

/**
 * Ends the process with `code` once everything written to `streams` has been handed to the
 * system. `process.exit` right after a large write drops what a pipe has not taken yet: a
 * command's output read by a slow reader (`deliveries list --json | (sleep 2; wc -c)`) was cut
 * at the pipe's 64 KiB, once at nothing. A stream that fails (the reader went away: EPIPE) or is
 * already closed does not hold the exit back.
 */
export const exitWhenFlushed = async (code: number, streams: readonly Writable[], exit: (code: number) => void = process.exit): Promise<void> => {
  await Promise.all(
    streams.map(
      (stream) =>
        new Promise<void>((resolve) => {
          if (stream.writableLength === 0 || stream.destroyed || stream.writableEnded) return resolve();
          // A reader that went away: the error ends the wait (and is not an uncaught exception).
          stream.once('error', () => resolve());
          // The callback of an empty write runs once every earlier write was flushed (in order).
          stream.write('', () => resolve());
        }),
    ),
  );
  exit(code);
};
