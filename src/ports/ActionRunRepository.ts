import type { ActionRun } from '../domain/triggers/ActionRun.js';

/** The record of every trigger action run. */
export interface ActionRunRepository {
  /** Inserts or replaces the run identified by (runId, actionIndex). */
  save(run: ActionRun): Promise<void>;
  /** The runs of one trigger run (one trigger fired by one request), by action index. */
  forRun(runId: string): Promise<ActionRun[]>;
  /** The most recent runs, newest first. */
  recent(limit: number): Promise<ActionRun[]>;
  /** How many action runs ended in each status. */
  countByStatus(): Promise<Record<string, number>>;
}
