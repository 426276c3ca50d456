import { JOB_STATUSES } from '../../domain/jobs/job.js';
import { commandTokenValues } from '../../domain/templates/render-command.js';
import { scheduleRunName } from '../../domain/schedules/schedule.js';
import { fromRequestTokens, scheduleSnapshot } from '../../domain/schedules/schedule-tokens.js';
import { currentTriggers } from '../triggers/trigger-source.js';
/** What the admin UI's pages show: read-only views over the capabilities. */
export class AdminOverview {
    sources;
    facts;
    constructor(sources) {
        this.sources = sources;
        this.facts = sources.facts;
    }
    triggers() {
        return currentTriggers(this.sources.triggers);
    }
    /** Every configured schedule with its next occurrence and its last recorded one. */
    async schedules(now) {
        const sources = this.sources.schedules;
        if (!sources)
            return [];
        const latest = await sources.runs.latest();
        return sources.list.current().map((schedule) => ({
            schedule,
            next: schedule.enabled ? sources.calendar.next(schedule.schedule, schedule.timezone, now) : null,
            last: latest.get(schedule.name) ?? null,
        }));
    }
    /** The recorded occurrences of one schedule, latest first. */
    scheduleRuns(name, limit = 50) {
        return this.sources.schedules?.runs.forSchedule(name, limit) ?? Promise.resolve([]);
    }
    /** The problems of the last refused reload (shown as a banner); empty when the running files are the files on disk. */
    reloadProblems() {
        return this.sources.schedules?.reloadProblems() ?? [];
    }
    recentRuns(limit = 50) {
        return this.sources.runs.recent(limit);
    }
    /** One trigger run with its actions rendered for the request that fired it; null when no action of it is recorded. */
    async triggerRun(runId) {
        const runs = await this.sources.runs.forRun(runId);
        if (runs.length === 0)
            return null;
        const scheduled = this.#scheduleOfRun(runs);
        if (scheduled) {
            const occurrence = { schedule: String(runs[0].detail.schedule), at: new Date(String(runs[0].detail.occurrence)) };
            return { runId, trigger: runs[0].trigger, configured: scheduled.schedule !== undefined, request: null, occurrence, actions: scheduled.actions };
        }
        const trigger = currentTriggers(this.sources.triggers).find((candidate) => candidate.name === runs[0].trigger);
        const requestId = runs.map((run) => run.detail.requestId).find((id) => typeof id === 'string');
        const request = requestId === undefined ? null : await this.sources.requests.find(requestId);
        const snapshot = request === null ? null : parseSnapshot(request.request);
        return {
            runId,
            trigger: runs[0].trigger,
            configured: trigger !== undefined,
            request,
            actions: runs.map((run) => {
                const action = trigger?.actions[run.actionIndex];
                return { run, rendered: action !== undefined && action.type === run.type ? render(action, run, snapshot) : null };
            }),
        };
    }
    /**
     * The run of a schedule's occurrence (recorded under `cron:<name>` with its occurrence): its
     * actions rendered with the values they got, templates as written (`{{now}}`); undefined for a trigger's run.
     */
    #scheduleOfRun(runs) {
        const { schedule: name, occurrence } = runs[0].detail;
        if (typeof name !== 'string' || typeof occurrence !== 'string' || runs[0].trigger !== scheduleRunName(name))
            return undefined;
        const schedule = this.sources.schedules?.list.current().find((candidate) => candidate.name === name);
        const snapshot = scheduleSnapshot(name, new Date(occurrence));
        const asWritten = (rendered) => rendered.type === 'command'
            ? {
                ...rendered,
                template: fromRequestTokens(rendered.template),
                values: rendered.values?.map((value) => ({ ...value, token: fromRequestTokens(value.token) })) ?? null,
            }
            : rendered.type === 'agent'
                ? { ...rendered, template: fromRequestTokens(rendered.template) }
                : rendered;
        return {
            schedule,
            actions: runs.map((run) => {
                const action = schedule?.actions[run.actionIndex];
                return { run, rendered: action !== undefined && action.type === run.type ? asWritten(render(action, run, snapshot)) : null };
            }),
        };
    }
    recentJobs(limit = 50) {
        return this.sources.jobs.list({ statuses: JOB_STATUSES, limit });
    }
    job(id) {
        return this.sources.jobs.get(id);
    }
    figures() {
        return this.sources.figures.execute();
    }
    tableSizes() {
        return this.sources.storage.tableSizes();
    }
    /** Every messaging channel of the gateway, in the registry's order, with its webhook as the platform reports it. */
    channels() {
        return Promise.all(this.sources.channels.all.map(async ({ platform, credentials, settings }) => {
            const status = {
                id: platform.id,
                title: platform.title,
                registers: platform.registration !== undefined,
                allowedChatIds: [...settings.allowedChatIds],
                polling: settings.mode === 'polling',
                variables: settings.variables,
            };
            const token = await credentials.current();
            if (token === undefined)
                return { ...status, configured: false };
            if (platform.registration === undefined)
                return { ...status, configured: true };
            try {
                return { ...status, configured: true, webhook: await platform.registration.getWebhookInfo(token) };
            }
            catch (error) {
                return { ...status, configured: true, webhook: null, error: error.message };
            }
        }));
    }
    conversation(threadId, limit = 50) {
        return this.sources.conversations.recent(threadId, limit);
    }
}
const parseSnapshot = (text) => {
    try {
        return JSON.parse(text);
    }
    catch {
        return null;
    }
};
const render = (action, run, request) => {
    switch (action.type) {
        case 'command':
            return { type: 'command', template: action.command, values: request === null ? null : commandTokenValues(action.command, request) };
        case 'webhook':
            return { type: 'webhook', method: action.method, url: action.url };
        case 'agent':
            return { type: 'agent', template: action.job, jobId: typeof run.detail.jobId === 'string' ? run.detail.jobId : null };
    }
};
//# sourceMappingURL=admin-overview.js.map