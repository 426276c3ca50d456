import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Thrown when another live process has the embedded database open. */
export class EmbeddedDatabaseBusy extends Error {
  constructor(
    readonly pid: number,
    readonly dataDir: string,
  ) {
    super(`The embedded database in ${dataDir} is in use by process ${pid}`);
    this.name = 'EmbeddedDatabaseBusy';
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * PGlite is single-process: two processes opening one data directory would corrupt it.
 * This pid file makes the second one fail clearly instead; a file left by a dead process is taken over.
 */
export class EmbeddedLock {
  readonly #file: string;

  constructor(private readonly dataDir: string) {
    this.#file = join(dataDir, 'embedded.pid');
  }

  /** The pid holding the lock, or null when nobody alive holds it. */
  async holder(): Promise<number | null> {
    try {
      const pid = Number((await readFile(this.#file, 'utf8')).trim());
      return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid) ? pid : null;
    } catch {
      return null;
    }
  }

  async acquire(): Promise<void> {
    await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const handle = await open(this.#file, 'wx', 0o600);
        await handle.writeFile(String(process.pid));
        await handle.close();
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const pid = await this.holder();
        if (pid !== null) throw new EmbeddedDatabaseBusy(pid, this.dataDir);
        await unlink(this.#file).catch(() => undefined);
      }
    }
    throw new Error(`Could not lock the embedded database in ${this.dataDir}`);
  }

  async release(): Promise<void> {
    try {
      if ((await readFile(this.#file, 'utf8')).trim() === String(process.pid)) await unlink(this.#file);
    } catch {
      // Already gone: nothing to release.
    }
  }
}
