import type { ActionRunView } from '../../../application/operations/admin-overview.js';
import { shownLines } from '../../../domain/triggers/approval-summary.js';
import type { TriggerAction } from '../../../domain/triggers/trigger.js';
import { shownWebhookTarget } from '../../../domain/triggers/webhook-target.js';
import { describeCondition } from '../../../domain/triggers/trigger-filter.js';
import { notFound, showPage, uuidParameter, type AdminRouter, type AdminTools } from './admin-http.js';
import { badge, duration, excerpt, maybeStamp, stamp } from './present.js';

/** One line per action in the list of triggers. */
const describeAction = (action: TriggerAction): string => {
  switch (action.type) {
    case 'webhook':
      return `webhook ${action.method} ${shownWebhookTarget(action.url)}`;
    case 'command':
      return `command: ${excerpt(action.command, 120)}`;
    case 'agent':
      return `agent: ${excerpt(action.job, 80)}`;
  }
};

const runHref = (runId: string, actionIndex: number): string => `/settings/runs/${encodeURIComponent(runId)}#action-${actionIndex}`;

const numberOrNull = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/**
 * The values a command got, shown with their unshown characters (bidi, zero width, controls)
 * escaped, as on the approvals page: request text cannot reorder or hide what the page says.
 */
const shownRendering = (rendered: ActionRunView['rendered']): ActionRunView['rendered'] =>
  rendered?.type === 'command' && rendered.values !== null
    ? { ...rendered, values: rendered.values.map((value) => ({ ...value, value: shownLines(value.value) })) }
    : rendered;

const actionModel = (view: ActionRunView, now: Date) => {
  const { run } = view;
  return {
    index: run.actionIndex,
    type: run.type,
    status: badge(run.status),
    startedAt: stamp(run.startedAt, now),
    took: duration(run.finishedAt.getTime() - run.startedAt.getTime()),
    attempts: run.attempts,
    exitCode: numberOrNull(run.detail.exitCode),
    httpStatus: numberOrNull(run.detail.httpStatus),
    error: run.error === null ? null : shownLines(run.error),
    output: typeof run.detail.output === 'string' ? shownLines(run.detail.output) : null,
    rendered: shownRendering(view.rendered),
  };
};

/** Triggers and their runs: the loaded triggers, the recent action runs, one run in full. */
export const registerTriggerPages = (router: AdminRouter, tools: AdminTools): void => {
  const { overview } = tools.deps;

  router.get('/settings/triggers', async (ctx) => {
    const now = new Date();
    const triggers = overview.triggers().map((trigger) => ({
      name: trigger.name,
      watchPath: trigger.watchPath,
      when: (trigger.when ?? []).map(describeCondition),
      state: badge(trigger.enabled ? 'enabled' : 'disabled'),
      actions: trigger.actions.map(describeAction),
    }));
    const runs = (await overview.recentRuns()).map((run) => ({
      href: runHref(run.runId, run.actionIndex),
      finishedAt: stamp(run.finishedAt, now),
      trigger: run.trigger,
      action: `${run.actionIndex} (${run.type})`,
      status: badge(run.status),
      attempts: run.attempts,
      error: run.error === null ? '' : shownLines(excerpt(run.error, 160)),
    }));
    showPage(ctx, tools, 'triggers', 'Triggers', 'triggers', { triggers, runs, reloadProblems: overview.reloadProblems() });
  });

  router.get('/settings/runs/:runId', async (ctx) => {
    const runId = uuidParameter(ctx, 0);
    const view = runId === undefined ? null : await overview.triggerRun(runId);
    if (view === null) return notFound(ctx, tools, 'No such trigger run.', { href: '/settings/triggers', label: 'Back to the triggers' });
    const now = new Date();
    showPage(ctx, tools, 'run', `Run of ${view.trigger}`, 'triggers', {
      runId: view.runId,
      trigger: view.trigger,
      configured: view.configured,
      request: view.request === null ? null : { watchPath: view.request.watchPath, receivedAt: maybeStamp(view.request.receivedAt, now) },
      occurrence: view.occurrence ? { schedule: view.occurrence.schedule, at: stamp(view.occurrence.at, now) } : null,
      actions: view.actions.map((action) => actionModel(action, now)),
    });
  });
};
