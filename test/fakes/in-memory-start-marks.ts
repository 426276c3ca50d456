import type { ShellRun } from '../../src/ports/shell-executor.js';
import type { StartMarks } from '../../src/ports/start-marks.js';

/**
 * StartMarks in memory: `place` names a mark, `touch` plays the shell creating it; a mark
 * placed elsewhere (`foreign`) cannot be told.
 */
export class InMemoryStartMarks implements StartMarks {
  readonly made = new Set<string>();
  readonly outcomes = new Map<string, ShellRun>();
  /** The attempt each mark was last made by (ShellOptions.startAttempt). */
  readonly attempts = new Map<string, number>();

  place(runId: string, actionIndex: number): { where: string; path: string } {
    const path = `/marks/${runId}.${actionIndex}`;
    return { where: `here:${path}`, path };
  }

  /** What the shell does first when it is given `path` as its start mark (and `attempt` as its startAttempt). */
  touch(path: string, attempt = 1): void {
    this.made.add(`here:${path}`);
    this.attempts.set(`here:${path}`, attempt);
  }

  async started(where: string): Promise<boolean | null> {
    return where.startsWith('here:') ? this.made.has(where) : null;
  }

  /** What the spawner does when a command it was left with ends: its outcome beside the mark (only while the mark is there). */
  leave(path: string, run: ShellRun): void {
    if (this.made.has(`here:${path}`)) this.outcomes.set(`here:${path}`, run);
  }

  async finished(where: string): Promise<ShellRun | null> {
    return this.outcomes.get(where) ?? null;
  }

  async attempt(where: string): Promise<number | null> {
    return this.made.has(where) ? (this.attempts.get(where) ?? 1) : null;
  }

  async clear(where: string): Promise<void> {
    this.made.delete(where);
    this.outcomes.delete(where);
    this.attempts.delete(where);
  }
}
