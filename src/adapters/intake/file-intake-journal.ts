import { type FileHandle, mkdir, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { InboundRequest } from '../../ports/inbound-request-store.js';
import type { IntakeJournal, JournalContents, JournaledRequest } from '../../ports/intake-journal.js';

/** The entries' format; an entry of another version is unreadable to this one and kept for it. */
const VERSION = 1;

interface Pending {
  readonly line: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Flushes the directory's entry of a file just created, so that the file itself survives a crash. */
const syncDirectory = async (dir: string): Promise<void> => {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

const isString = (value: unknown): value is string => typeof value === 'string';

/** The entry a line holds, or undefined when it holds none of this version. */
const entryOf = (line: string): JournaledRequest | undefined => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { v, keyId, keyHash, request } = parsed as Record<string, unknown>;
  if (v !== VERSION || !isString(keyId) || !isString(keyHash) || typeof request !== 'object' || request === null) return undefined;
  const r = request as Record<string, unknown>;
  const runs = r.runs;
  if (
    !isString(r.id) ||
    !isString(r.watchPath) ||
    !isString(r.receivedAt) ||
    Number.isNaN(Date.parse(r.receivedAt)) ||
    !isString(r.request) ||
    !Array.isArray(r.triggers) ||
    !r.triggers.every(isString) ||
    !Array.isArray(runs) ||
    !runs.every((run) => typeof run === 'object' && run !== null && isString(run.trigger) && isString(run.runId))
  )
    return undefined;
  const stored: InboundRequest = {
    id: r.id,
    watchPath: r.watchPath,
    receivedAt: new Date(r.receivedAt),
    request: r.request,
    triggers: r.triggers,
    runs: runs.map((run: { trigger: string; runId: string }) => ({ trigger: run.trigger, runId: run.runId })),
    replayOf: null,
  };
  return { keyId, keyHash, request: stored };
};

/**
 * IntakeJournal in one file of JSON lines (owner-only, in the data directory). Appends share
 * writes: entries appended while a write is under way, or in the same turn of the event loop, go
 * to the file together, in one write and one `fdatasync`, and each `append` resolves once that
 * flush returned. A crash can cut the last line short: such a line was never acknowledged, and
 * `read` leaves it out. A write or flush that fails rejects the appends it carried — and every
 * later one: after a failed flush the file's state is unknown (PostgreSQL stops on such a
 * failure for the same reason), so nothing more is acknowledged from it.
 */
export class FileIntakeJournal implements IntakeJournal {
  #handle: Promise<FileHandle> | undefined;
  #pending: Pending[] = [];
  #writing: Promise<void> | undefined;
  #failed: unknown;

  constructor(private readonly file: string) {}

  append(entry: JournaledRequest): Promise<void> {
    if (this.#failed !== undefined) return Promise.reject(this.#failed);
    const { request } = entry;
    const line = `${JSON.stringify({ v: VERSION, keyId: entry.keyId, keyHash: entry.keyHash, request: { ...request, receivedAt: request.receivedAt.toISOString() } })}\n`;
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ line, resolve, reject });
      this.#writing ??= this.#writeAll();
    });
  }

  async read(): Promise<JournalContents> {
    await this.#settled();
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], unreadable: 0 };
      throw error;
    }
    const lines = text.split('\n');
    // The text after the last line break was never acknowledged: a write cut short.
    lines.pop();
    const entries: JournaledRequest[] = [];
    let unreadable = 0;
    for (const line of lines) {
      const entry = entryOf(line);
      if (entry === undefined) unreadable++;
      else entries.push(entry);
    }
    return { entries, unreadable };
  }

  async clear(): Promise<void> {
    await this.#settled();
    const handle = await this.#open();
    await handle.truncate(0);
    await handle.datasync();
  }

  /** Closes the file (appends under way are finished first). */
  async close(): Promise<void> {
    await this.#settled();
    const handle = this.#handle;
    this.#handle = undefined;
    if (handle !== undefined) await (await handle).close();
  }

  async #settled(): Promise<void> {
    while (this.#writing !== undefined) await this.#writing;
  }

  #open(): Promise<FileHandle> {
    this.#handle ??= (async () => {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      const handle = await open(this.file, 'a', 0o600);
      // A file created now must not vanish with the directory's unflushed state.
      await syncDirectory(dirname(this.file));
      return handle;
    })();
    // A failed open is tried again by the next call.
    this.#handle.catch(() => (this.#handle = undefined));
    return this.#handle;
  }

  async #writeAll(): Promise<void> {
    // Entries of the same turn of the event loop join this write.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending;
        this.#pending = [];
        try {
          if (this.#failed !== undefined) throw this.#failed;
          const handle = await this.#open();
          await handle.write(batch.map((pending) => pending.line).join(''));
          await handle.datasync();
          for (const pending of batch) pending.resolve();
        } catch (error) {
          this.#failed ??= error;
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      this.#writing = undefined;
    }
  }
}
