import type { ActionRun } from '../../domain/triggers/action-run.js';
import { isDomainError } from '../../domain/errors/domain-error.js';
import { renderCommand } from '../../domain/templates/render-command.js';
import { renderPrompt } from '../../domain/templates/render-prompt.js';
import { renderText } from '../../domain/templates/template-tokens.js';
import { approvalSummary, unquotedApprovalSummary } from '../../domain/triggers/approval-summary.js';
import { actionFingerprint, type FingerprintMac, isFingerprintOf } from '../../domain/triggers/action-fingerprint.js';
import { passesWhen } from '../../domain/triggers/trigger-filter.js';
import { storableText } from '../../domain/text/storable-text.js';
import { type NamedSecret, redactSecrets } from '../../domain/jobs/redact-secrets.js';
import type { AgentAction, CommandAction, TriggerAction, WebhookAction } from '../../domain/triggers/trigger.js';
import type { ActionRunRepository } from '../../ports/action-run-repository.js';
import type { ApprovalStore } from '../../ports/approval-store.js';
import type { Clock } from '../../ports/clock.js';
import type { HttpForwarder } from '../../ports/http-forwarder.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { InboundRequest, InboundRequestStore } from '../../ports/inbound-request-store.js';
import type { JobLauncher } from '../../ports/job-launcher.js';
import type { Logger } from '../../ports/logger.js';
import type { ShellExecutor, ShellRun } from '../../ports/shell-executor.js';
import type { StartMarks } from '../../ports/start-marks.js';
import type { Timer } from '../../ports/timer.js';
import type { RequestSnapshot } from '../../domain/templates/request-snapshot.js';
import { parseStoredSnapshot } from '../../domain/templates/request-snapshot.js';
import type { TaskQueue } from '../../ports/task-queue.js';
import type { TriggerLanes } from '../../ports/trigger-lanes.js';
import { relane, type TriggerRunTask } from './dispatch-trigger-runs.js';
import { currentTriggers, type TriggerSource } from './trigger-source.js';

/** What `runActions` runs: a trigger's or a schedule's actions, for one request (real or a schedule's). */
export interface ActionsRun {
  readonly runId: string;
  /** Recorded as the runs' trigger: a trigger's name, or `cron:<name>` for a schedule. */
  readonly name: string;
  readonly actions: readonly TriggerAction[];
  /** The values the templates render, or why they are missing (each action is then recorded failed). */
  readonly request: RequestSnapshot | string;
  /** The stored request, when there is one (linked from the run's records). */
  readonly requestId?: string;
  /** More fields for each action's record (a schedule's occurrence, from which its values are known again). */
  readonly detail?: Readonly<Record<string, unknown>>;
  /** The trigger's task: an action with `approval: true` asks for a decision only with it (else it is not runnable). */
  readonly task?: TriggerRunTask;
  /**
   * Aborted when the task queue took the run's task back (it ran past its time limit): the
   * running command is stopped, no further action starts, and the queue's next run of the task
   * goes on from the next action.
   */
  readonly signal?: AbortSignal;
}

export interface RunTriggerSettings {
  /** Working directory of command actions. */
  readonly triggersDir: string;
  /** Timeout of a command action without its own `timeout`. */
  readonly commandTimeoutMs: number;
  /**
   * The whole environment of command actions (PATH, HOME, LANG, TZ and the COMMAND_ENV
   * variables), read at start-up; each run adds its token variables. Nothing else of the
   * service's environment reaches a command.
   */
  readonly commandEnv: Readonly<Record<string, string>>;
  /**
   * Values redacted from a command's output before it is recorded (the run page shows it): the
   * values of the COMMAND_ENV variables and the service's own credentials.
   */
  readonly redacted?: readonly NamedSecret[];
  /** How long an action with `approval: true` waits for a decision. */
  readonly approvalTimeoutMs?: number;
  /**
   * The installation's key its records' fingerprints are made with (actionFingerprint); the
   * service always has one. Without it (tests), the fingerprints leave secrets out.
   */
  readonly fingerprintKey?: FingerprintMac;
  /**
   * Every watch path naming the endpoint of a run's path, its own first (a channel's endpoint and
   * its alias path), as FireTriggers fires them: a queued run whose trigger watches none of them
   * any more is dropped (see `execute`). By default only the path itself.
   */
  readonly endpointPaths?: (watchPath: string) => readonly string[];
}

/**
 * Why the agent actions of a trigger run fired by this request (at this watch path) do not run,
 * or undefined when they do: a code-host event of the gateway's own job branches, or of the
 * commits of a job's auto-merge (each job's own push, pull request, runs and merge would start
 * another job, without end). The other actions run.
 */
export type AgentActionsGuard = (watchPath: string, request: RequestSnapshot) => string | undefined | Promise<string | undefined>;

/** How long a task that finds no request waits for it, and how often it reads again (see RunTrigger.#storedRequest). */
export const REQUEST_WAIT_MS = 10_000;
export const REQUEST_POLL_MS = 20;
/** Only a task fired this recently waits for its request: an older one's request is not being written any more. */
const RECENT_TASK_MS = 60_000;

/** Why an action that was running when the service died is not run again. */
/**
 * Whether an action's record ends its run: an approval denied or expired, or refused since
 * (`endsRun` in its details: the action changed since it was approved, approvals unavailable).
 */
const endsRun = (record: ActionRun): boolean => record.status === 'denied' || record.status === 'expired' || record.detail.endsRun === true;

export const INTERRUPTED = 'interrupted: the service stopped while this action ran (it may have done its work); it is not run again';

const CHANGED_SINCE_APPROVED =
  'not run: the action changed since it was approved (the trigger file was reloaded), so what was approved is not what would run; fire the trigger again to be asked again';

/**
 * Why a queued run is dropped whose trigger's `when` (as reloaded since it fired) the request
 * that fired it no longer passes.
 */
export const WHEN_NO_LONGER_MATCHES =
  "not run: the trigger's when, as the trigger file was reloaded since the run was queued, no longer matches the request that fired it";

/** Why a queued run of a trigger disabled since it was queued is dropped. */
export const TRIGGER_DISABLED = 'not run: the trigger was disabled';

/** Why a queued run of a trigger removed since it was queued is dropped. */
export const TRIGGER_REMOVED = 'not run: the trigger is no longer configured';

/**
 * Why a queued run is dropped whose trigger (as reloaded since it fired) no longer watches the
 * path of the request that fired it.
 */
export const noLongerWatches = (watchPath: string): string =>
  `not run: the trigger, as the trigger file was reloaded since the run was queued, no longer watches ${watchPath}, the path of the request that fired it`;

/** Why an action found running is closed without running again though a reload removed or changed it. */
const GONE = 'the trigger file was reloaded since, and this action is no longer in the trigger as it was (changed or removed)';

/**
 * Why an action a run of the task again does not know is not run while one it ran is no longer
 * in the trigger as it was: the two may be one action, changed; running it could run it twice.
 */
export const RELOADED_UNDER_WAY =
  'not run: the trigger file was reloaded while this run was under way, and an action the run had already started is no longer in the trigger as it was (changed or removed); this action may be that one, changed, so it is not run (it could run twice); replay the request to run the trigger as it is now';

/**
 * Which record of earlier attempts of a run belongs to each of `actions` (undefined: none, the
 * action has not run), found by what the action is — the fingerprint each record keeps
 * (`detail.action`) — not by its place, which a reload of the trigger file between two attempts
 * may have changed (an action inserted, removed, moved). Equal actions (one fingerprint) take
 * the records in order. A record from before fingerprints were kept belongs to the action at its
 * index. A fingerprint is compared in the form it was recorded in (isFingerprintOf: keyed with
 * `key`, or as an earlier version wrote it). `indexes`: the index each action is recorded
 * under — its record's, else its place in `actions` when no record holds it, else the next after
 * every index in use. `used`: the records that belong to an action; the others are of actions no
 * longer in the list.
 */
export const matchRecords = (
  actions: readonly TriggerAction[],
  records: readonly ActionRun[],
  key?: FingerprintMac,
): { records: (ActionRun | undefined)[]; indexes: number[]; fingerprints: string[]; used: Set<ActionRun> } => {
  const fingerprints = actions.map((action) => actionFingerprint(action, key));
  const used = new Set<ActionRun>();
  const fingerprintOf = (run: ActionRun): string | undefined => (typeof run.detail.action === 'string' ? run.detail.action : undefined);
  const byPlace = new Map(records.filter((run) => fingerprintOf(run) === undefined).map((run) => [run.actionIndex, run]));
  const inOrder = records.filter((run) => fingerprintOf(run) !== undefined).sort((a, b) => a.actionIndex - b.actionIndex);
  const found = actions.map((action, place) => {
    const run = byPlace.get(place) ?? inOrder.find((candidate) => !used.has(candidate) && isFingerprintOf(fingerprintOf(candidate)!, action, key));
    if (run !== undefined) used.add(run);
    return run;
  });
  const taken = new Set(records.map((run) => run.actionIndex));
  const free = found.map((run, place) => run === undefined && !taken.has(place));
  for (const [place, isFree] of free.entries()) if (isFree) taken.add(place);
  let next = Math.max(-1, ...taken) + 1;
  const indexes = found.map((run, place) => (run !== undefined ? run.actionIndex : free[place] ? place : next++));
  return { records: found, indexes, fingerprints, used };
};

/**
 * Kept in each record of an action (`detail`): what the action is (`action`, its
 * actionFingerprint), and what the run's actions were as the attempt that wrote it ran them
 * (`actions`, their fingerprints in order). A run of the task again finds the records of its
 * actions by them (matchRecords), and tells an action added by a reload from one it had.
 */
type WhatRan = { readonly action: string; readonly actions: readonly string[] };

/** The default wait for a decision on an action with `approval: true`: 30 minutes. */
export const APPROVAL_TIMEOUT_MS = 30 * 60_000;

type Outcome = Pick<ActionRun, 'status' | 'attempts' | 'error' | 'detail'>;

/**
 * Characters of a command's output kept in its record: all of it up to this length, else its
 * beginning (RECORDED_HEAD) and its end, where a failing command usually says why.
 */
export const RECORDED_OUTPUT = 16 * 1024;
const RECORDED_HEAD = 4 * 1024;

/** The outcome as the database can store it: text with NUL and lone surrogates replaced. */
const storable = (outcome: Outcome): Outcome => ({
  ...outcome,
  error: outcome.error === null ? null : storableText(outcome.error),
  detail: Object.fromEntries(Object.entries(outcome.detail).map(([key, value]) => [key, typeof value === 'string' ? storableText(value) : value])),
});

/**
 * What the shell means by the exit codes it gives itself: a command (or a script's path, relative
 * to TRIGGERS_DIR) it cannot find, or a file it cannot execute (a script without its x bit).
 * Said in the run's error, which otherwise was a bare "exit code 127".
 */
const SHELL_EXIT_MEANINGS: Readonly<Record<number, string>> = {
  126: ' (not executable: found, but without execute permission — chmod +x the script — or no program)',
  127: ' (command not found: a ./path is relative to TRIGGERS_DIR, a bare name is looked up on PATH)',
};

/**
 * Runs the actions of one fired trigger, one after another in file order: each starts
 * when the previous one has finished, whatever its outcome. Every action run is recorded.
 * When a task is run again (its worker died), actions already recorded are not repeated: their
 * records are found by what each action is, not by its place, which a reload of the trigger file
 * between two attempts may have changed (matchRecords).
 *
 * Run once, record always: once an action has run, nothing throws — a record that cannot be
 * saved is logged at error level and the action is not run again. Only what fails before any
 * action ran (reading the records or the request) throws, so that the queue retries the task.
 */
export class RunTrigger {
  constructor(
    private readonly triggers: TriggerSource,
    private readonly runs: ActionRunRepository,
    private readonly requests: InboundRequestStore,
    private readonly shell: ShellExecutor,
    private readonly forwarder: HttpForwarder,
    private readonly jobs: JobLauncher,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: RunTriggerSettings,
    /** Where actions with `approval: true` ask; without it such an action is not runnable (never run unapproved). */
    private readonly approvals?: ApprovalStore,
    /**
     * Where command actions mark their start: with them, a command found `running` after the
     * service died is started then if it never started. Without them it is never started again.
     */
    private readonly startMarks?: StartMarks,
    /** How a task waits for a request stored at the same time as it (see #storedRequest); without it, it does not wait. */
    private readonly timer?: Timer,
    /** Where runs of triggers with `concurrency` are queued (see `execute`); without it a run is never moved. */
    private readonly lanes?: { readonly queue: TaskQueue; readonly lanes: TriggerLanes },
    /** Why a request's agent actions do not run (a code-host event of a job's own branch); without it they always do. */
    private readonly agentGuard?: AgentActionsGuard,
  ) {}

  /**
   * Runs the task's actions (see runActions). `from`: the task as the queue runs it — its
   * `signal` (see ActionsRun), and its id and queue, with which a run whose trigger's
   * `concurrency` changed since it was queued is moved to one of its lanes first (`relane`).
   */
  async execute(task: TriggerRunTask, from: { readonly signal?: AbortSignal; readonly taskId?: string; readonly ordered?: boolean } = {}): Promise<void> {
    const log = this.logger.child({ trigger: task.trigger, runId: task.runId });
    const trigger = currentTriggers(this.triggers).find((candidate) => candidate.name === task.trigger);
    if (!trigger?.enabled) {
      // Disabling a trigger (and reloading) stops its runs still queued, as it stops new ones.
      if (trigger) await this.#drop(task, trigger.actions, TRIGGER_DISABLED, log, 'trigger is disabled; its queued run is dropped');
      else await this.#drop(task, undefined, TRIGGER_REMOVED, log, 'trigger is no longer configured; its queued run is dropped');
      return;
    }
    // So does moving it to another endpoint: a run takes the trigger as it is configured when it
    // runs, and a trigger that no longer watches the request's path would not fire for it now (a
    // replay skips it too). The path's other names (a channel's alias) still count, as at firing.
    if (!(this.settings.endpointPaths?.(task.watchPath) ?? [task.watchPath]).includes(trigger.watchPath)) {
      const why = noLongerWatches(task.watchPath);
      await this.#drop(
        task,
        trigger.actions,
        why,
        log,
        'the trigger no longer watches the path of the request that fired it (reloaded since); its queued run is dropped',
        {
          watchPath: task.watchPath,
          watching: trigger.watchPath,
        },
      );
      return;
    }
    if (this.lanes !== undefined && from.taskId !== undefined) {
      const moved = await relane(this.lanes.queue, this.lanes.lanes, trigger, task, { taskId: from.taskId, ordered: from.ordered === true });
      if (moved) {
        log.info({ concurrency: trigger.concurrency }, "run queued again in its trigger's lanes: its concurrency changed since the run was queued");
        return;
      }
    }
    const signal = from.signal;
    const request = await this.#request(task);
    // A run takes the trigger as it is configured when it runs, `when` included (as a disabled
    // trigger's run is dropped above): a reload that tightened the filter after a request fired
    // the trigger — the run waiting in the queue, in a lane, for an approval, or for a start after
    // a stop — drops the run, as it would not fire the trigger now. Unchanged, the test passes
    // again (the stored request is the one the trigger was matched with).
    if (typeof request !== 'string' && !passesWhen(trigger.when, request)) {
      await this.#drop(
        task,
        trigger.actions,
        WHEN_NO_LONGER_MATCHES,
        log,
        "the trigger's when no longer matches the request that fired it (reloaded since); its queued run is dropped",
      );
      return;
    }
    await this.runActions({ runId: task.runId, name: trigger.name, actions: trigger.actions, request, requestId: task.requestId, task, signal }, log);
  }

  /**
   * Drops a queued run that its trigger, as reloaded since, would not run (disabled, removed, no
   * longer watching the request's path, its `when` no longer passed): nothing more of it runs, a
   * warning says so, the records that said it goes on are closed and each action it had not run
   * is recorded `not_runnable` with `why` — without a record the run would look queued for good
   * (the admin UI, `deliveries show`). `actions`: the trigger's as configured now; undefined for
   * a trigger no longer configured, whose actions are not known any more (#recordUnknownNotRun).
   */
  async #drop(
    task: TriggerRunTask,
    actions: readonly TriggerAction[] | undefined,
    why: string,
    log: Logger,
    message: string,
    fields: Record<string, unknown> = {},
  ): Promise<void> {
    log.warn({ ...(task.requestId === undefined ? {} : { requestId: task.requestId }), ...fields }, message);
    await this.#closeOpen(task.runId, why, log);
    if (actions === undefined) await this.#recordUnknownNotRun(task, why, log);
    else await this.#recordNotRun(task, actions, why, log);
  }

  /**
   * For a dropped run of a trigger no longer configured, whose actions are not known any more.
   * A run that no attempt began (its records, if any, are this method's own `not_runnable` ones:
   * an earlier try stopped part way) and whose task names its actions' types as queued
   * (`actionTypes`): one `not_runnable` record per action, at its place, of its type, with `why`,
   * for each action that has none yet. Otherwise one `not_runnable` record (type `unknown`) with
   * `why`, standing for the actions it had not run, after every index in use — when it has no
   * record at all, or when its records name more actions (`detail.actions`, as the attempt that
   * wrote them ran them) than it has records.
   */
  async #recordUnknownNotRun(task: TriggerRunTask, why: string, log: Logger): Promise<void> {
    const records = await this.runs.forRun(task.runId);
    const now = this.clock.now();
    const notRun = (actionIndex: number, type: ActionRun['type']): ActionRun => ({
      runId: task.runId,
      trigger: task.trigger,
      actionIndex,
      type,
      status: 'not_runnable',
      attempts: 0,
      startedAt: now,
      finishedAt: now,
      error: why,
      detail: task.requestId === undefined ? {} : { requestId: task.requestId },
    });
    if (task.actionTypes !== undefined && task.actionTypes.length > 0 && records.every((run) => run.status === 'not_runnable')) {
      const recorded = new Set(records.map((run) => run.actionIndex));
      for (const [actionIndex, type] of task.actionTypes.entries()) if (!recorded.has(actionIndex)) await this.#record(notRun(actionIndex, type), log);
      return;
    }
    const named = Math.max(0, ...records.map((run) => (Array.isArray(run.detail.actions) ? run.detail.actions.length : 0)));
    if (records.length > 0 && named <= records.length) return;
    await this.#record(notRun(Math.max(-1, ...records.map((run) => run.actionIndex)) + 1, 'unknown'), log);
  }

  /**
   * Closes the records of a dropped run that say it goes on (an action awaiting approval, one
   * left running by a stop) as failed with `why`: they would say so for good (the admin UI, the
   * metrics), and retention keeps a run that goes on.
   */
  async #closeOpen(runId: string, why: string, log: Logger): Promise<void> {
    const open = (await this.runs.forRun(runId)).filter((run) => run.status === 'awaiting_approval' || run.status === 'running');
    for (const run of open) {
      const error = run.status === 'running' ? `${INTERRUPTED}; ${why}` : why;
      await this.#record({ ...run, status: 'failed', finishedAt: this.clock.now(), error }, log);
    }
  }

  /**
   * Records the actions of a dropped run that have no record yet as `not_runnable` with `why`,
   * so that the run's page and its delivery say why nothing ran (without a record a run looks as
   * if it still waited in the queue). Records that exist (actions an earlier attempt ran, those
   * #closeOpen closed) are kept. A record that cannot be saved is logged (#record).
   */
  async #recordNotRun(task: TriggerRunTask, actions: readonly TriggerAction[], why: string, log: Logger): Promise<void> {
    const matched = matchRecords(actions, await this.runs.forRun(task.runId), this.settings.fingerprintKey);
    const now = this.clock.now();
    for (const [position, action] of actions.entries()) {
      if (matched.records[position] !== undefined) continue;
      await this.#record(
        {
          runId: task.runId,
          trigger: task.trigger,
          actionIndex: matched.indexes[position],
          type: action.type,
          status: 'not_runnable',
          attempts: 0,
          startedAt: now,
          finishedAt: now,
          error: why,
          detail: {
            ...(task.requestId === undefined ? {} : { requestId: task.requestId }),
            action: matched.fingerprints[position],
            actions: matched.fingerprints,
          },
        },
        log,
      );
    }
  }

  /**
   * Runs actions one after another, recording each (see the class); actions of `runId` recorded
   * already are not repeated. Returns the status of each action, in order: as recorded before, or
   * as it ran now; an action that waits for approval ends the list (the run stops there).
   * @throws when reading the records fails (before any action ran), and when `input.signal`
   * aborted (before the next action would start: the queue runs the task again).
   */
  async runActions(input: ActionsRun, log: Logger = this.logger.child({ trigger: input.name, runId: input.runId })): Promise<ActionRun['status'][]> {
    const task = { requestId: input.requestId, approvedAction: input.task?.approvedAction };
    const trigger = { name: input.name };
    const request = input.request;
    const statuses: ActionRun['status'][] = [];
    const records = await this.runs.forRun(input.runId);
    // Each action's record of an earlier attempt, found by what the action is (the trigger file
    // may have been reloaded between two attempts), and the index it is recorded under.
    const matched = matchRecords(input.actions, records, this.settings.fingerprintKey);
    // An action recorded before that is no longer in the trigger as it was (changed or removed).
    const gone = records.filter((run) => !matched.used.has(run));
    for (const run of gone) if (run.status === 'running') await this.#closeGone(run, input, log);
    const approvedGone = gone.find((run) => run.status === 'awaiting_approval' && run.actionIndex === task.approvedAction);
    if (approvedGone !== undefined) {
      // The approved action was changed (or removed) since it was approved: it does not run, nor does any other.
      await this.#record(
        {
          ...approvedGone,
          status: 'failed',
          attempts: 0,
          finishedAt: this.clock.now(),
          error: CHANGED_SINCE_APPROVED,
          detail: { ...approvedGone.detail, endsRun: true },
        },
        log,
      );
      log.warn({ action: approvedGone.actionIndex, type: approvedGone.type }, 'approved trigger action changed since it was approved; not run');
      return ['failed'];
    }
    // Such an action (one that ran, or may have) and one no earlier attempt had in its actions may
    // be one action, changed: whether it ran cannot be told, so the new ones are not run (they
    // could run twice). Records from before fingerprints were kept tell nothing of this.
    const known = new Set(
      records.flatMap((run) =>
        Array.isArray(run.detail.actions) ? run.detail.actions.filter((fingerprint): fingerprint is string => typeof fingerprint === 'string') : [],
      ),
    );
    const ambiguous = gone.some(
      (run) => typeof run.detail.action === 'string' && run.status !== 'awaiting_approval' && run.status !== 'denied' && run.status !== 'expired',
    );
    // Not done: an action that waits for a decision (its record is replaced once it runs), and one
    // that was running when its worker died (recorded as interrupted below, never started again,
    // unless it is a command whose start mark shows it never started).
    const done = new Map(records.filter((run) => run.status !== 'awaiting_approval' && run.status !== 'running').map((run) => [run.actionIndex, run]));
    const interrupted = new Map(records.filter((run) => run.status === 'running').map((run) => [run.actionIndex, run]));
    for (const [position, action] of input.actions.entries()) {
      const index = matched.indexes[position];
      // Kept in its records: what the action is, and the actions of the run as this attempt runs them.
      const ran: WhatRan = { action: matched.fingerprints[position], actions: matched.fingerprints };
      const earlier = done.get(index);
      if (earlier !== undefined) {
        statuses.push(earlier.status);
        // An approval refused (denied, expired, or the action changed since it was approved)
        // ends the run for good: a run of the task again must not go on past it.
        if (endsRun(earlier)) return statuses;
        continue;
      }
      if (input.signal?.aborted) {
        log.warn({ action: index, reason: reasonOf(input.signal) }, 'trigger run stopped; its next actions run when the task queue runs it again');
        throw new Error(`the run was stopped before action ${index}: ${reasonOf(input.signal)}`);
      }
      const startedAt = this.clock.now();
      if (
        ambiguous &&
        matched.records[position] === undefined &&
        ![...known].some((fingerprint) => isFingerprintOf(fingerprint, action, this.settings.fingerprintKey))
      ) {
        await this.#record(
          this.#finished(input, index, action.type, startedAt, { status: 'failed', attempts: 0, error: RELOADED_UNDER_WAY, detail: {} }, ran),
          log,
        );
        log.warn({ action: index, type: action.type }, 'trigger action not run: the trigger file was reloaded while the run was under way');
        statuses.push('failed');
        continue;
      }
      // Checked again at each run (a replay, an approval's): the stored request tells.
      const refused =
        action.type === 'agent' && input.task !== undefined && typeof request !== 'string' ? await this.agentGuard?.(input.task.watchPath, request) : undefined;
      if (refused !== undefined) {
        const detail = task.requestId === undefined ? {} : { requestId: task.requestId };
        await this.#record(this.#finished(input, index, action.type, startedAt, { status: 'not_runnable', attempts: 0, error: refused, detail }, ran), log);
        log.info({ action: index, type: action.type, reason: refused }, 'trigger agent action not run');
        statuses.push('not_runnable');
        continue;
      }
      if (task.approvedAction === index && typeof request !== 'string') {
        const changed = await this.#changedSinceApproved(action, index, records, request);
        if (changed !== undefined) {
          await this.#record(
            this.#finished(input, index, action.type, startedAt, { status: 'failed', attempts: 0, error: changed, detail: { endsRun: true } }, ran),
            log,
          );
          log.warn({ action: index, type: action.type }, 'approved trigger action changed since it was approved; not run');
          statuses.push('failed');
          return statuses;
        }
      }
      if (action.approval === true && task.approvedAction !== index && typeof request !== 'string') {
        // The run stops here until a person decides; approved, it resumes at this action.
        const outcome: Outcome | 'decided' = input.task
          ? await this.#askApproval(action, index, input.task, request)
          : { status: 'not_runnable', attempts: 0, error: 'approval is available for triggers only; the action was not run', detail: { endsRun: true } };
        const decided = (): ActionRun['status'][] => {
          // Asked before and decided since (a run of the task again), or decided while it was
          // being asked (the buttons are out before the record is written): the decision wrote
          // the record and, approved, queued the run that goes on; this one stops without a word.
          log.info({ action: index, type: action.type }, 'trigger action was decided already; this run of the task stops');
          return statuses;
        };
        if (outcome === 'decided') return decided();
        const record = this.#finished(input, index, action.type, startedAt, outcome, ran);
        if (outcome.status === 'awaiting_approval') {
          // Only over the record read when the run began: a decision saved meanwhile is never replaced.
          if (
            !(await this.runs.start(
              record,
              records.find((run) => run.actionIndex === index),
            ))
          )
            return decided();
        } else await this.#record(record, log);
        if (outcome.status === 'awaiting_approval')
          log.info({ action: index, type: action.type, approvalId: outcome.detail.approvalId }, 'trigger action awaits approval');
        else log.warn({ action: index, type: action.type, error: outcome.error }, 'trigger action not runnable');
        statuses.push(outcome.status);
        return statuses;
      }
      // An action found running was started once, unless its command's start mark says it never started.
      const earlierMark = await this.#startedBefore(interrupted.get(index), log);
      const wasStarted = earlierMark !== undefined;
      const runnable = !wasStarted && typeof request !== 'string';
      const mark = runnable && action.type === 'command' ? this.startMarks?.place(input.runId, index) : undefined;
      // Recorded as running first (with its command's start mark): if the process dies while it
      // runs, it is not started again. A record that cannot be saved throws here, before the
      // action ran: the queue retries the task. So does one that finds the action started or
      // finished since its records were read: another process runs the task now (it took it
      // over after a missed heartbeat), and this one stops before doing the same work again.
      if (runnable) {
        const stored = await this.#started(
          {
            runId: input.runId,
            trigger: trigger.name,
            actionIndex: index,
            type: action.type,
            startedAt,
            requestId: task.requestId,
            mark: mark?.where,
            ran,
            detail: input.detail,
          },
          records.find((record) => record.actionIndex === index),
        );
        if (!stored) {
          log.warn({ action: index, type: action.type }, 'trigger action started by another run of the same task meanwhile; this run stops');
          throw new Error(`action ${index} was started by another run of this task meanwhile; this run stopped`);
        }
      }
      // A command the service let go of (a stop that did not wait for it, a crash) may have ended
      // since, and left its outcome beside its mark: that is its record, not "interrupted". Either
      // way it counts the attempts made: its mark says which one was running (a retry's).
      const marked = wasStarted && earlierMark !== '' ? earlierMark : undefined;
      const left = marked === undefined ? null : await this.startMarks?.finished(marked).catch(() => null);
      const attemptsMade = (marked === undefined ? null : await this.startMarks?.attempt(marked).catch(() => null)) ?? 1;
      const outcome: Outcome = wasStarted
        ? left
          ? this.#endedAfterStop(left, action, attemptsMade)
          : { status: 'failed', attempts: attemptsMade, error: INTERRUPTED, detail: {} }
        : typeof request === 'string'
          ? { status: 'failed', attempts: 0, error: request, detail: {} }
          : await this.#perform(action, trigger.name, request, mark?.path, input.signal).catch(
              (error: unknown): Outcome => ({
                status: 'failed',
                attempts: 1,
                error: error instanceof Error ? error.message : String(error),
                detail: {},
              }),
            );
      const recorded = storable(outcome);
      // The request id leads the run's page to the values the action got (InboundRequestStore).
      const withRequest = task.requestId === undefined ? recorded.detail : { ...recorded.detail, requestId: task.requestId };
      const run = this.#finished(input, index, action.type, startedAt, { ...recorded, detail: withRequest }, ran);
      const saved = await this.#record(run, log);
      // The record is final now: the mark is no longer needed to tell what happened. (At most
      // one of the two: a mark placed now, or the one an interrupted start left.) A record that
      // could not be saved leaves the `running` one: its mark stays, so that a retry of the task
      // finds the command started, and never starts it again.
      const markToClear = mark?.where ?? earlierMark;
      if (markToClear && saved) await this.startMarks?.clear(markToClear).catch(() => undefined);
      // The output stays out of the log, at every level (the default LOG_LEVEL writes warn lines
      // too): it may carry request text, or a secret a script echoes. The line says how long it
      // was; the text is in the run's record only (the admin UI's run page).
      const { output, action: _action, actions: _actions, ...detail } = run.detail;
      const fields = {
        action: index,
        type: action.type,
        status: run.status,
        attempts: run.attempts,
        durationMs: run.finishedAt.getTime() - startedAt.getTime(),
        error: run.error ?? undefined,
        ...detail,
        ...(typeof output === 'string' ? { outputLength: output.length } : {}),
      };
      if (run.status === 'succeeded') log.info(fields, 'trigger action finished');
      else log.warn(fields, run.status === 'not_runnable' ? 'trigger action not runnable' : 'trigger action failed');
      statuses.push(run.status);
    }
    return statuses;
  }

  /**
   * The request that fired the task: inline in tasks queued before requests were stored once,
   * else read from the store. A request no longer stored is a message for the record (a retry
   * would not bring it back); a failed read throws, so the queue retries the task.
   */
  async #request(task: TriggerRunTask): Promise<RequestSnapshot | string> {
    if (task.request !== undefined) return parseStoredSnapshot(task.request);
    const stored = task.requestId === undefined ? null : await this.#storedRequest(task.requestId, task.firedAt);
    if (stored === null)
      return `the request that fired this trigger (${task.requestId ?? 'no id'}) is not stored (its caller was answered with an error, or retention removed it); the action was not run`;
    return parseStoredSnapshot(stored.request);
  }

  /**
   * FireTriggers queues a request's runs once the request is stored (DispatchTriggerRuns). Earlier
   * versions stored both at the same time, so a task they queued can start before its request
   * has committed: a task fired in the last minute that finds no request reads again every
   * REQUEST_POLL_MS for up to REQUEST_WAIT_MS. A request still missing then was never stored
   * (its caller got an error and sends it again), or retention removed it.
   */
  async #storedRequest(requestId: string, firedAt: string): Promise<InboundRequest | null> {
    let stored = await this.requests.find(requestId);
    if (stored !== null || this.timer === undefined) return stored;
    const missingSince = this.clock.now().getTime();
    if (missingSince - Date.parse(firedAt) > RECENT_TASK_MS) return null;
    while (stored === null && this.clock.now().getTime() - missingSince < REQUEST_WAIT_MS) {
      await new Promise<void>((resolve) => this.timer!.after(REQUEST_POLL_MS, resolve));
      stored = await this.requests.find(requestId);
    }
    return stored;
  }

  /** Stores the approval the action waits for (once per run and action); its record says so. */
  /**
   * Why the action at `index` must not run on its approval: a reload changed it (or put another
   * action in its place) since the person approved what the approval showed, which is compared
   * with what the action would run now. Undefined when it is what was approved (or no approval
   * is on record to compare with: a run resumed before approvals were kept).
   */
  async #changedSinceApproved(action: TriggerAction, index: number, records: readonly ActionRun[], request: RequestSnapshot): Promise<string | undefined> {
    const waiting = records.find((record) => record.actionIndex === index && record.status === 'awaiting_approval');
    const changed = CHANGED_SINCE_APPROVED;
    // The action's fingerprint, recorded when it asked: any change of its definition shows.
    const asked = waiting?.detail.action;
    if (typeof asked === 'string') return isFingerprintOf(asked, action, this.settings.fingerprintKey) ? undefined : changed;
    // A record from before fingerprints: what the approval showed (some changes do not show there),
    // as the version that asked wrote it — values unquoted then, quoted since.
    const approvalId = waiting?.detail.approvalId;
    if (typeof approvalId !== 'string' || this.approvals === undefined) return undefined;
    const approval = await this.approvals.find(approvalId);
    if (approval === null) return undefined;
    const shown = [approvalSummary(action, request), unquotedApprovalSummary(action, request)];
    return shown.includes(approval.summary) ? undefined : changed;
  }

  /** Asks for a decision; 'decided' when the approval was asked before (a run of the task again) and is no longer pending. */
  async #askApproval(action: TriggerAction, index: number, task: TriggerRunTask, request: RequestSnapshot): Promise<Outcome | 'decided'> {
    const requestDetail = task.requestId === undefined ? {} : { requestId: task.requestId };
    if (this.approvals === undefined)
      return {
        status: 'not_runnable',
        attempts: 0,
        error: 'approvals are not available here; the action was not run',
        detail: { ...requestDetail, endsRun: true },
      };
    const now = this.clock.now();
    const approval = await this.approvals.request({
      id: this.ids.next(),
      runId: task.runId,
      trigger: task.trigger,
      actionIndex: index,
      actionType: action.type,
      summary: approvalSummary(action, request),
      requestId: task.requestId ?? null,
      watchPath: task.watchPath,
      firedAt: task.firedAt,
      status: 'pending',
      createdAt: now,
      expiresAt: new Date(now.getTime() + (this.settings.approvalTimeoutMs ?? APPROVAL_TIMEOUT_MS)),
      decidedBy: null,
      decidedAt: null,
    });
    if (approval.status !== 'pending') return 'decided';
    return {
      status: 'awaiting_approval',
      attempts: 0,
      error: null,
      detail: {
        ...requestDetail,
        approvalId: approval.id,
        expiresAt: approval.expiresAt.toISOString(),
        action: actionFingerprint(action, this.settings.fingerprintKey),
      },
    };
  }

  /**
   * Records that an action starts, before it does. A task is run again when its worker died
   * (SIGKILL, a crash) before it finished; the action found `running` then was started once
   * already — it may have done its work — and is recorded as interrupted instead of started a
   * second time: an action runs at most once, the queue's retry notwithstanding. Stored only
   * when the action's record is still `expected` (as read before the run began): false when
   * another run of the task started or finished it meanwhile (ActionRunRepository.start).
   * @throws when the record cannot be saved: nothing of the action ran, the queue retries the task.
   */
  async #started(
    start: {
      runId: string;
      trigger: string;
      actionIndex: number;
      type: TriggerAction['type'];
      startedAt: Date;
      requestId?: string;
      /** Where its command marks its start (StartMarks), kept in the record to be looked at after a crash. */
      mark?: string;
      /** What the action is, and the run's actions (see WhatRan): a run of the task again finds the action's record by it. */
      ran: WhatRan;
      /** The run's own fields (a schedule's occurrence): its page shows them while the action runs. */
      detail?: Readonly<Record<string, unknown>>;
    },
    expected: ActionRun | undefined,
  ): Promise<boolean> {
    const { requestId, mark, ran, detail, ...fields } = start;
    return this.runs.start(
      {
        ...fields,
        status: 'running',
        attempts: 0,
        finishedAt: start.startedAt,
        error: null,
        detail: { ...(requestId === undefined ? {} : { requestId }), ...(mark === undefined ? {} : { startMark: mark }), ...ran, ...detail },
      },
      expected,
    );
  }

  /**
   * For an action found `running` (its worker died): undefined when it never started — its
   * command's start mark is missing where this process can look — so that it is started now;
   * else it counts as started (at most once), and the result is its mark to clear, or ''.
   */
  async #startedBefore(record: ActionRun | undefined, log: Logger): Promise<string | undefined> {
    if (record === undefined) return undefined;
    const where = record.detail.startMark;
    if (typeof where !== 'string' || this.startMarks === undefined) return '';
    const started = await this.startMarks.started(where).catch(() => null);
    if (started !== false) return where;
    log.info(
      { action: record.actionIndex, type: record.type },
      'trigger action was running when the service stopped but its command never started; starting it now',
    );
    return undefined;
  }

  /**
   * An action's final record: its outcome, what ran (`ran`: see WhatRan), and the run's own
   * fields (`input.detail`) over the outcome's.
   */
  #finished(input: ActionsRun, index: number, type: TriggerAction['type'], startedAt: Date, outcome: Outcome, ran: WhatRan): ActionRun {
    return {
      runId: input.runId,
      trigger: input.name,
      actionIndex: index,
      type,
      startedAt,
      finishedAt: this.clock.now(),
      ...outcome,
      detail: { ...outcome.detail, ...ran, ...input.detail },
    };
  }

  /**
   * Closes the record of an action found `running` (its worker died) that is no longer in the
   * trigger as it was (a reload changed or removed it): as interrupted, with the outcome its
   * command left if it ended since; as not run when its command's start mark shows it never started.
   */
  async #closeGone(run: ActionRun, input: ActionsRun, log: Logger): Promise<void> {
    const earlierMark = await this.#startedBefore(run, log);
    const marked = earlierMark !== undefined && earlierMark !== '' ? earlierMark : undefined;
    const left = marked === undefined ? null : await this.startMarks?.finished(marked).catch(() => null);
    const attempts = (marked === undefined ? null : await this.startMarks?.attempt(marked).catch(() => null)) ?? 1;
    const outcome: Outcome =
      earlierMark === undefined
        ? { status: 'failed', attempts: 0, error: `not run: ${GONE}`, detail: {} }
        : left
          ? this.#commandOutcome(left, attempts, this.settings.commandTimeoutMs)
          : { status: 'failed', attempts, error: `${INTERRUPTED}; ${GONE}`, detail: {} };
    const recorded = storable(outcome);
    const saved = await this.#record(
      {
        ...run,
        ...recorded,
        finishedAt: this.clock.now(),
        detail: { ...run.detail, ...recorded.detail, ...(left ? { endedAfterStop: true } : {}), ...input.detail },
      },
      log,
    );
    if (earlierMark && saved) await this.startMarks?.clear(earlierMark).catch(() => undefined);
    log.warn({ action: run.actionIndex, type: run.type }, 'trigger action that was running is no longer in the trigger (reloaded); not run again');
  }

  /** Saves the record of an action that ran; a failure is logged, never thrown (the action must not run again). Says whether it was saved. */
  async #record(run: ActionRun, log: Logger): Promise<boolean> {
    try {
      await this.runs.save(run);
      return true;
    } catch (error) {
      const reason = storableText(error instanceof Error ? error.message : String(error)).slice(0, 300);
      log.error(
        { action: run.actionIndex, type: run.type, status: run.status, reason },
        'trigger action ran but its record could not be saved; it is not run again',
      );
      return false;
    }
  }

  #perform(action: TriggerAction, trigger: string, request: RequestSnapshot, startMark?: string, signal?: AbortSignal): Promise<Outcome> {
    switch (action.type) {
      case 'command':
        return this.#command(action, request, startMark, signal);
      case 'webhook':
        return this.#webhook(action, request, signal);
      case 'agent':
        return this.#agent(action, trigger, request);
    }
  }

  async #command(action: CommandAction, request: RequestSnapshot, startMark?: string, signal?: AbortSignal): Promise<Outcome> {
    let command: ReturnType<typeof renderCommand>;
    try {
      command = renderCommand(action.command, request);
    } catch (error) {
      if (isDomainError(error)) return { status: 'failed', attempts: 0, error: error.message, detail: {} };
      throw error;
    }
    const env = { ...this.settings.commandEnv, ...command.env };
    const timeoutMs = this.#timeoutOf(action);
    const attempts = 1 + (action.retries ?? 0);
    for (let attempt = 1; ; attempt++) {
      const result = await this.shell.run(command.script, {
        cwd: this.settings.triggersDir,
        timeoutMs,
        env,
        // Each attempt makes the mark again, with its number: after a stop it says which one ran.
        ...(startMark === undefined ? {} : { startMark, startAttempt: attempt }),
        ...(signal === undefined ? {} : { signal }),
        keep: { head: RECORDED_HEAD, tail: RECORDED_OUTPUT - RECORDED_HEAD },
      });
      const ok = result.exitCode === 0 && !result.timedOut && !result.aborted;
      if (ok || attempt >= attempts || result.aborted) return this.#commandOutcome(result, attempt, timeoutMs, signal);
    }
  }

  /** A command action's outcome from its shell run. */
  #commandOutcome(result: ShellRun, attempts: number, timeoutMs: number, signal?: AbortSignal): Outcome {
    const ok = result.exitCode === 0 && !result.timedOut && !result.aborted;
    const error = result.aborted
      ? `stopped: ${signal ? reasonOf(signal) : 'aborted'}`
      : result.timedOut
        ? `timed out after ${timeoutMs} ms`
        : `exit code ${result.exitCode}${SHELL_EXIT_MEANINGS[result.exitCode ?? -1] ?? ''}`;
    return {
      status: ok ? 'succeeded' : 'failed',
      attempts,
      error: ok ? null : error,
      // Redacted before anyone keeps it, as a job's log is: a command may print what it was given.
      detail: { exitCode: result.exitCode, commandMs: result.durationMs, output: redactSecrets(result.output, this.settings.redacted ?? []) },
    };
  }

  /** The outcome a command left after its service let it go (as attempt `attempts`), marked as such. */
  #endedAfterStop(left: ShellRun, action: TriggerAction, attempts: number): Outcome {
    const outcome = this.#commandOutcome(left, attempts, this.#timeoutOf(action));
    return { ...outcome, detail: { ...outcome.detail, endedAfterStop: true } };
  }

  #timeoutOf(action: TriggerAction): number {
    return action.type === 'command' && action.timeoutSeconds !== undefined ? action.timeoutSeconds * 1000 : this.settings.commandTimeoutMs;
  }

  async #webhook(action: WebhookAction, request: RequestSnapshot, signal?: AbortSignal): Promise<Outcome> {
    const result = await this.forwarder.send(
      {
        url: action.url,
        method: action.method,
        headers: action.headers,
        json: action.method === 'POST' ? { ...action.vars, data: request.body ?? null } : undefined,
      },
      signal,
    );
    return {
      status: result.ok ? 'succeeded' : 'failed',
      attempts: result.attempts,
      error: result.ok ? null : result.aborted ? `stopped: ${signal ? reasonOf(signal) : 'aborted'}` : (result.error ?? `HTTP ${result.status}`),
      detail: { httpStatus: result.status },
    };
  }

  async #agent(action: AgentAction, trigger: string, request: RequestSnapshot): Promise<Outcome> {
    try {
      // Request text reaches the model inside untrusted blocks, unless the trigger opted out.
      const job = action.unsafeRaw ? renderText(action.job, request) : renderPrompt(action.job, request, this.ids.next());
      const jobId = await this.jobs.launch({
        job,
        llmProvider: action.llmProvider,
        llmModel: action.llmModel,
        source: { kind: 'trigger', name: trigger },
      });
      return { status: 'succeeded', attempts: 1, error: null, detail: { jobId } };
    } catch (error) {
      if (isDomainError(error) && error.code === 'not_configured') {
        return { status: 'not_runnable', attempts: 0, error: error.message, detail: {} };
      }
      // JOB_QUEUE_LIMIT reached: recorded failed with the reason, never tried again (a trigger
      // fired by the jobs' own pull requests would otherwise keep adding to the backlog).
      if (isDomainError(error) && error.code === 'busy') return { status: 'failed', attempts: 0, error: error.message, detail: {} };
      throw error;
    }
  }
}

/** Why a run was stopped, as its signal says. */
const reasonOf = (signal: AbortSignal): string =>
  signal.reason instanceof Error ? signal.reason.message : signal.reason === undefined ? 'aborted' : String(signal.reason);
