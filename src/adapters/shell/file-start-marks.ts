import { mkdirSync } from 'node:fs';
import { access, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { ShellRun } from '../../ports/shell-executor.js';
import type { StartMarks } from '../../ports/start-marks.js';
import { outcomePathOf, readMarkAttempt, readOutcome } from './left-outcome.js';

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * Start marks as empty files in a directory of the service's own (`DATA_DIR/run-marks`). A mark
 * is named by host and path: only a process on the same machine can look at it, and where the
 * directory is missing (another container, a new volume) the answer is "cannot tell".
 */
export class FileStartMarks implements StartMarks {
  readonly #dir: string;

  constructor(
    dir: string,
    private readonly host: string = hostname(),
  ) {
    this.#dir = resolve(dir);
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
  }

  place(runId: string, actionIndex: number): { where: string; path: string } {
    const path = join(this.#dir, `${runId.replace(/[^0-9a-zA-Z-]/g, '_')}.${actionIndex}`);
    return { where: `${this.host}:${path}`, path };
  }

  async started(where: string): Promise<boolean | null> {
    const path = this.#path(where);
    if (path === null || !(await exists(dirname(path)))) return null;
    return exists(path);
  }

  async finished(where: string): Promise<ShellRun | null> {
    const path = this.#path(where);
    return path === null ? null : readOutcome(path);
  }

  async attempt(where: string): Promise<number | null> {
    const path = this.#path(where);
    return path === null ? null : readMarkAttempt(path);
  }

  async clear(where: string): Promise<void> {
    const path = this.#path(where);
    if (path === null) return;
    // The mark first: a spawner writes an outcome only beside a mark (and removes one it wrote
    // where the mark went meanwhile), so none is left behind once both are gone.
    await rm(path, { force: true });
    await rm(outcomePathOf(path), { force: true });
  }

  /** The mark's file when it was placed on this machine, else null. */
  #path(where: string): string | null {
    const prefix = `${this.host}:`;
    return where.startsWith(prefix) ? where.slice(prefix.length) : null;
  }
}
