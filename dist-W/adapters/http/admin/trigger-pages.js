import { describeCondition } from '../../../domain/triggers/trigger-filter.js';
import { notFound, showPage, uuidParameter } from './admin-http.js';
import { badge, duration, excerpt, maybeStamp, stamp } from './present.js';
/** One line per action in the list of triggers. */
const describeAction = (action) => {
    switch (action.type) {
        case 'webhook':
            return `webhook ${action.method} ${action.url}`;
        case 'command':
            return `command: ${excerpt(action.command, 120)}`;
        case 'agent':
            return `agent: ${excerpt(action.job, 80)}`;
    }
};
const runHref = (runId, actionIndex) => `/settings/runs/${encodeURIComponent(runId)}#action-${actionIndex}`;
const numberOrNull = (value) => (typeof value === 'number' ? value : null);
const actionModel = (view, now) => {
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
        error: run.error,
        output: typeof run.detail.output === 'string' ? run.detail.output : null,
        rendered: view.rendered,
    };
};
/** Triggers and their runs: the loaded triggers, the recent action runs, one run in full. */
export const registerTriggerPages = (router, tools) => {
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
            error: run.error === null ? '' : excerpt(run.error, 160),
        }));
        showPage(ctx, tools, 'triggers', 'Triggers', 'triggers', { triggers, runs, reloadProblems: overview.reloadProblems() });
    });
    router.get('/settings/runs/:runId', async (ctx) => {
        const runId = uuidParameter(ctx, 0);
        const view = runId === undefined ? null : await overview.triggerRun(runId);
        if (view === null)
            return notFound(ctx, tools, 'No such trigger run.', { href: '/settings/triggers', label: 'Back to the triggers' });
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
//# sourceMappingURL=trigger-pages.js.map