import type { ActionRun } from '../domain/triggers/action-run.js';

/** The record of every trigger action run. */
export interface ActionRunRepository {
  /**
   * Inserts or replaces the run identified by (runId, actionIndex); idempotent, also when the
   * same run is saved at once on several replicas (one record remains). Strings in `error` and
   * `detail` (at any depth) are kept as given, except that each NUL and lone surrogate (which a
   * database refuses) is kept as U+FFFD: a record never fails for its text.
   * @throws when the store fails.
   */
  save(run: ActionRun): Promise<void>;
  /**
   * Records that an action starts (`run`, status `running`) — or waits for a decision
   * (`awaiting_approval`) — unless another run of the same task, or a decision, got there first: stored only when the action's record is still as the caller read it — none
   * (`expected` undefined), or one with `expected`'s status and finishing time. Says whether it
   * was stored; false: a process that took the task over (or still runs it) has started or
   * finished the action meanwhile. Of callers starting one action at once, exactly one gets true.
   * @throws when the store fails.
   */
  start(run: ActionRun, expected: ActionRun | undefined): Promise<boolean>;
  /** The runs of one trigger run (one trigger fired by one request), by action index; none for an unknown id (or one that is no UUID). */
  forRun(runId: string): Promise<ActionRun[]>;
  /** The most recent runs by finishing time, newest first, at most `limit`. */
  recent(limit: number): Promise<ActionRun[]>;
  /** How many action runs ended in each status; statuses without runs are absent. */
  countByStatus(): Promise<Record<string, number>>;
  /**
   * Retention: deletes trigger runs that are over before `cutoff` — every record finished
   * before it, none `running` or `awaiting_approval` (a run skips the actions its records say
   * it did: deleting them from a run still going would run them again) —, oldest first: the
   * runs of up to `limit` records, each with all its records. Returns how many records it
   * deleted (fewer than `limit`: none is left).
   */
  deleteOlderThan(cutoff: Date, limit: number): Promise<number>;
}
