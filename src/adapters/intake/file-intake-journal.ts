import { type FileHandle, link, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { Buffer } from 'node:buffer';
import { dirname, join } from 'node:path';
import type { InboundRequest } from '../../ports/inbound-request-store.js';
import type { IntakeJournal, JournalContents, JournaledRequest } from '../../ports/intake-journal.js';

/** The entries' format; a line of another version is unreadable to this one (counted, and cleared with the rest). */
const VERSION = 1;

/**
 * The journal's largest size: requests that would take it past this wait for the service
 * instead (EarlyIntake.admit). Far below V8's longest string, so `read` always can, and a window
 * of a second or two at the bench's pace (~5 000 requests of ~1 KB) takes ~10 MB.
 */
export const JOURNAL_MAX_BYTES = 64 * 1024 * 1024;

interface Pending {
  readonly line: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** The calls of node:fs/promises whose failures a journal meets (test seam: a file system without hard links, a full disk). */
export interface JournalFs {
  readonly open: typeof open;
  readonly link: typeof link;
  readonly rename: typeof rename;
}

const NODE_FS: JournalFs = { open, link, rename };

/** An append that would take the journal past its largest size: nothing was written. */
export class JournalFull extends Error {
  constructor(maxBytes: number) {
    super(`the early-intake journal is full (${maxBytes} bytes)`);
  }
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

/**
 * Cuts the file back to its last line break: the end of its last whole line, which a crash in
 * the middle of a write leaves followed by part of a line (never acknowledged). Returns the size.
 */
const cutUnfinishedLine = async (handle: FileHandle): Promise<number> => {
  const { size } = await handle.stat();
  const chunk = Buffer.alloc(64 * 1024);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const { bytesRead } = await handle.read(chunk, 0, end - start, start);
    const at = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (at !== -1) {
      end = start + at + 1;
      break;
    }
    end = start;
  }
  if (end === size) return size;
  await handle.truncate(end);
  await handle.datasync();
  return end;
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
  // A key's id and digest together, or neither (JournaledRequest).
  const keyed = isString(keyId) && isString(keyHash);
  if (v !== VERSION || (!keyed && (keyId !== undefined || keyHash !== undefined)) || typeof request !== 'object' || request === null) return undefined;
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
  return keyed ? { keyId, keyHash, request: stored } : { request: stored };
};

/**
 * IntakeJournal in one file of JSON lines (owner-only, in the data directory). Appends share
 * writes: entries appended while a write is under way, or in the same turn of the event loop, go
 * to the file together, written whole (a short write is continued) and flushed by one
 * `fdatasync`, and each `append` resolves once that flush returned. A crash can cut the last line
 * short: such a line was never acknowledged, and the file is cut back to its last whole line
 * before anything is appended to it again (else the next entry would be joined to it and lost);
 * `read` leaves such a line out too. A write or flush that fails rejects the appends it carried —
 * and every later one: the batch is cut off again where it can be, but after a failed flush the
 * file's state is unknown (PostgreSQL stops on such a failure for the same reason), so nothing
 * more is acknowledged from it until it is closed: opened again, it appends anew (the service sets
 * the failed file aside in between, so that it appends to a new file). The file never grows past
 * `maxBytes` (`hasRoom`).
 */
export class FileIntakeJournal implements IntakeJournal {
  #handle: Promise<FileHandle> | undefined;
  #pending: Pending[] = [];
  #writing: Promise<void> | undefined;
  #failed: unknown;
  /** The file's size once open (what is flushed), plus what is pending: what `hasRoom` counts. */
  #bytes = 0;
  #pendingBytes = 0;
  #sized = false;

  constructor(
    private readonly file: string,
    private readonly maxBytes = JOURNAL_MAX_BYTES,
    private readonly fs: Pick<JournalFs, 'open'> = NODE_FS,
  ) {}

  /** Whether an entry of about `bytes` fits now (the file opened by `open`, its size counted). */
  hasRoom(bytes: number): boolean {
    return this.#sized && this.#failed === undefined && this.#bytes + this.#pendingBytes + bytes <= this.maxBytes;
  }

  /** Opens the file (cutting a line a crash left unfinished), so that `hasRoom` knows its size. */
  async open(): Promise<void> {
    await this.#open();
  }

  append(entry: JournaledRequest): Promise<void> {
    if (this.#failed !== undefined) return Promise.reject(this.#failed);
    const { request } = entry;
    const line = `${JSON.stringify({ v: VERSION, keyId: entry.keyId, keyHash: entry.keyHash, request: { ...request, receivedAt: request.receivedAt.toISOString() } })}\n`;
    const size = Buffer.byteLength(line);
    if (this.#bytes + this.#pendingBytes + size > this.maxBytes) return Promise.reject(new JournalFull(this.maxBytes));
    return new Promise<void>((resolve, reject) => {
      this.#pendingBytes += size;
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
    this.#bytes = 0;
  }

  /** Closes the file (appends under way are finished first); a failed journal is failed no more once closed. */
  async close(): Promise<void> {
    await this.#settled();
    const handle = this.#handle;
    this.#handle = undefined;
    this.#failed = undefined;
    if (handle !== undefined) await (await handle).close();
  }

  async #settled(): Promise<void> {
    while (this.#writing !== undefined) await this.#writing;
  }

  #open(): Promise<FileHandle> {
    this.#handle ??= (async () => {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      const handle = await this.fs.open(this.file, 'a+', 0o600);
      try {
        // A file created now must not vanish with the directory's unflushed state.
        await syncDirectory(dirname(this.file));
        this.#bytes = await cutUnfinishedLine(handle);
        this.#sized = true;
        return handle;
      } catch (error) {
        await handle.close().catch(() => undefined);
        throw error;
      }
    })();
    // A failed open (an append's) fails that append and every later one; one asked by `open` or
    // `clear` may be tried again.
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
        const bytes = Buffer.from(batch.map((pending) => pending.line).join(''));
        this.#pendingBytes -= bytes.length;
        let handle: FileHandle | undefined;
        try {
          if (this.#failed !== undefined) throw this.#failed;
          handle = await this.#open();
          // A write may take less than it was given (a file system filling up): the rest follows.
          for (let written = 0; written < bytes.length; ) written += (await handle.write(bytes, written)).bytesWritten;
          await handle.datasync();
          this.#bytes += bytes.length;
          for (const pending of batch) pending.resolve();
        } catch (error) {
          this.#failed ??= error;
          // What of the batch reached the file is cut off again, where the file allows it.
          await handle?.truncate(this.#bytes).catch(() => undefined);
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      this.#writing = undefined;
    }
  }
}

/** Where journals set aside wait to be stored (setAsideJournal): `left-<time>-<n>.jsonl` beside them. */
const LEFT = /^left-\d+-\d+\.jsonl$/;
let setAsideCount = 0;

/** What link() fails with where the file system has no hard links (SMB/CIFS, vfat/exFAT, some FUSE mounts). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

const codeOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/**
 * Moves the journal file's entries out of its way, when it holds any: renamed to
 * `left-<time>-<n>.jsonl` in its directory (linked there, then unlinked here: made durable with
 * the directory by the next `open` of a journal there), so that the journal starts empty at once while what it
 * held is stored from the renamed file (leftJournals). Close the journal first.
 */
export const setAsideJournal = async (file: string, fs: JournalFs = NODE_FS): Promise<void> => {
  try {
    if ((await stat(file)).size === 0) return;
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return;
    throw error;
  }
  const target = (): string => join(dirname(file), `left-${Date.now()}-${setAsideCount++}.jsonl`);
  // A link never replaces a file of that name (rename would: a clock set back could name an
  // earlier set-aside file not stored yet); the journal's name goes once the link is made. A crash
  // between the two leaves both names: the entries are stored twice over, each once (by id).
  for (;;) {
    const name = target();
    let linked: boolean;
    try {
      await fs.link(file, name);
      linked = true;
    } catch (error) {
      const code = codeOf(error);
      if (code === 'EEXIST') continue;
      if (code === undefined || !NO_HARD_LINKS.has(code)) throw error;
      linked = false;
    }
    if (!linked) break;
    await unlink(file);
    return;
  }
  // No hard links here: the name is taken first by creating an empty file (which never replaces
  // one of that name), then the journal is renamed over that empty file. A crash between the two
  // leaves an empty set-aside file, stored as nothing and removed.
  for (;;) {
    const name = target();
    try {
      await (await fs.open(name, 'wx', 0o600)).close();
    } catch (error) {
      if (codeOf(error) === 'EEXIST') continue;
      throw error;
    }
    try {
      await fs.rename(file, name);
      return;
    } catch (error) {
      await unlink(name).catch(() => undefined);
      throw error;
    }
  }
};

/** The journals set aside in `dir` and not stored yet, oldest first. */
export const leftJournals = async (dir: string): Promise<string[]> => {
  try {
    return (await readdir(dir))
      .filter((name) => LEFT.test(name))
      .sort((a, b) => {
        const [, at, n] = a.split(/[-.]/);
        const [, bt, bn] = b.split(/[-.]/);
        return Number(at) - Number(bt) || Number(n) - Number(bn);
      })
      .map((name) => join(dir, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
};

/** The set-aside journals that could not be stored by a pass (storeLeftJournals): each stays for the next pass or start. */
export class LeftJournalsNotStored extends AggregateError {
  constructor(
    readonly files: readonly string[],
    errors: readonly unknown[],
  ) {
    super(errors, `${files.length} set-aside intake journal(s) could not be stored: ${files.join(', ')}`);
  }
}

/**
 * Stores each journal set aside in `dir` (`store`, given the journal), oldest first, and removes
 * its file once stored. One that fails stays for the next pass or start (told to `failed` with
 * its file), and those after it are still tried; rejects at the end (LeftJournalsNotStored) when
 * any failed, so that the pass is tried again.
 */
export const storeLeftJournals = async (
  dir: string,
  store: (journal: FileIntakeJournal) => Promise<unknown>,
  failed: (file: string, error: unknown) => void,
): Promise<void> => {
  const files: string[] = [];
  const errors: unknown[] = [];
  for (const file of await leftJournals(dir)) {
    const journal = new FileIntakeJournal(file);
    try {
      try {
        await store(journal);
      } finally {
        await journal.close();
      }
      await unlink(file);
    } catch (error) {
      files.push(file);
      errors.push(error);
      failed(file, error);
    }
  }
  if (errors.length > 0) throw new LeftJournalsNotStored(files, errors);
};
