import type { TriggerAction } from '../../../domain/triggers/trigger.js';
import { shownWebhookTarget } from '../../../domain/triggers/webhook-target.js';
import type { AdminRouter, AdminTools } from './admin-http.js';
import { showPage } from './admin-http.js';
import { badge, excerpt, maybeStamp, stamp } from './present.js';

/** A schedule's action in one line; its templates shown as written (`{{now}}`, `{{schedule.name}}`). */
const describeAction = (action: TriggerAction): string => {
  const asWritten = (text: string) => text.replaceAll('{{body.now}}', '{{now}}').replaceAll('{{body.schedule.name}}', '{{schedule.name}}');
  switch (action.type) {
    case 'webhook':
      return `webhook ${action.method} ${shownWebhookTarget(action.url)}`;
    case 'command':
      return `command: ${excerpt(asWritten(action.command), 120)}`;
    case 'agent':
      return `agent: ${excerpt(asWritten(action.job), 80)}`;
  }
};

/** Statuses whose actions ran (their records are on the trigger run page). */
const RAN = new Set(['running', 'succeeded', 'failed']);

/** The schedules page: every schedule with its next occurrence and what its last one did. */
export const registerSchedulePages = (router: AdminRouter, tools: AdminTools): void => {
  const { overview } = tools.deps;

  router.get('/settings/schedules', async (ctx) => {
    const now = new Date();
    const schedules = (await overview.schedules(now)).map(({ schedule, next, last }) => ({
      name: schedule.name,
      expression: schedule.schedule,
      timezone: schedule.timezone ?? null,
      catchUp: schedule.catchUp,
      state: badge(schedule.enabled ? 'enabled' : 'disabled'),
      next: maybeStamp(next, now),
      last:
        last === null
          ? null
          : {
              occurrence: stamp(last.occurrence, now),
              status: badge(last.status),
              catchUp: last.catchUp,
              error: last.error === null ? null : excerpt(last.error, 160),
              href: last.runId !== null && RAN.has(last.status) ? `/settings/runs/${encodeURIComponent(last.runId)}` : null,
            },
      actions: schedule.actions.map(describeAction),
    }));
    showPage(ctx, tools, 'schedules', 'Schedules', 'schedules', { schedules, reloadProblems: overview.reloadProblems() });
  });
};
