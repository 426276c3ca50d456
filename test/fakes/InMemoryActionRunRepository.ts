import type { ActionRun } from '../../src/domain/triggers/ActionRun.js';
import type { ActionRunRepository } from '../../src/ports/ActionRunRepository.js';

export class InMemoryActionRunRepository implements ActionRunRepository {
  readonly runs: ActionRun[] = [];

  async save(run: ActionRun): Promise<void> {
    const index = this.runs.findIndex((r) => r.runId === run.runId && r.actionIndex === run.actionIndex);
    if (index >= 0) this.runs[index] = run;
    else this.runs.push(run);
  }
  async forRun(runId: string): Promise<ActionRun[]> {
    return this.runs.filter((r) => r.runId === runId).sort((a, b) => a.actionIndex - b.actionIndex);
  }
  async recent(limit: number): Promise<ActionRun[]> {
    return [...this.runs].sort((a, b) => b.finishedAt.getTime() - a.finishedAt.getTime()).slice(0, limit);
  }
}
