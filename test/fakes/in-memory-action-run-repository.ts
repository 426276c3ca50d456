import { storableJson } from '../../src/domain/text/storable-json.js';
import type { ActionRun } from '../../src/domain/triggers/action-run.js';
import type { ActionRunRepository } from '../../src/ports/action-run-repository.js';

/** ActionRunRepository in an array; passes the same contract suite as the database adapter. */
export class InMemoryActionRunRepository implements ActionRunRepository {
  readonly runs: ActionRun[] = [];

  async save(run: ActionRun): Promise<void> {
    const stored: ActionRun = { ...run, error: run.error === null ? null : storableJson(run.error), detail: storableJson(structuredClone({ ...run.detail })) };
    const index = this.runs.findIndex((r) => r.runId === run.runId && r.actionIndex === run.actionIndex);
    if (index >= 0) this.runs[index] = stored;
    else this.runs.push(stored);
  }
  async start(run: ActionRun, expected: ActionRun | undefined): Promise<boolean> {
    const current = this.runs.find((r) => r.runId === run.runId && r.actionIndex === run.actionIndex);
    const asRead =
      expected === undefined
        ? current === undefined
        : current !== undefined && current.status === expected.status && current.finishedAt.getTime() === expected.finishedAt.getTime();
    if (!asRead) return false;
    await this.save(run);
    return true;
  }
  async forRun(runId: string): Promise<ActionRun[]> {
    return this.runs.filter((r) => r.runId === runId).sort((a, b) => a.actionIndex - b.actionIndex);
  }
  async countByStatus(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const run of this.runs) counts[run.status] = (counts[run.status] ?? 0) + 1;
    return counts;
  }
  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const unfinished = new Set(
      this.runs.filter((run) => run.finishedAt >= cutoff || run.status === 'running' || run.status === 'awaiting_approval').map((run) => run.runId),
    );
    const picked = new Set(
      this.runs
        .filter((run) => run.finishedAt < cutoff && !unfinished.has(run.runId))
        .sort((a, b) => a.finishedAt.getTime() - b.finishedAt.getTime())
        .slice(0, limit)
        .map((run) => run.runId),
    );
    const before = this.runs.length;
    const kept = this.runs.filter((run) => !(picked.has(run.runId) && run.finishedAt < cutoff));
    this.runs.splice(0, this.runs.length, ...kept);
    return before - kept.length;
  }
  async recent(limit: number): Promise<ActionRun[]> {
    return [...this.runs].sort((a, b) => b.finishedAt.getTime() - a.finishedAt.getTime()).slice(0, limit);
  }
}
