import { JOB_STATUSES, type Job } from '../../domain/jobs/job.js';
import { commandTokenValues, type CommandTokenValue } from '../../domain/templates/render-command.js';
import { parseStoredSnapshot } from '../../domain/templates/request-snapshot.js';
import type { RequestSnapshot } from '../../domain/templates/request-snapshot.js';
import { type FingerprintMac, isFingerprintOf } from '../../domain/triggers/action-fingerprint.js';
import { shownWebhookTarget } from '../../domain/triggers/webhook-target.js';
import type { ActionRun } from '../../domain/triggers/action-run.js';
import type { Trigger, TriggerAction } from '../../domain/triggers/trigger.js';
import type { ActionRunRepository } from '../../ports/action-run-repository.js';
import type { ConversationStore, ConversationTurn } from '../../ports/conversation-store.js';
import type { InboundRequest, InboundRequestStore } from '../../ports/inbound-request-store.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { WebhookInfo } from '../../ports/messaging-channel.js';
import type { StorageFigures, TableSize } from '../../ports/storage-figures.js';
import type { CollectOperationalFigures, OperationalFigures } from './collect-operational-figures.js';
import { scheduleRunName, type Schedule } from '../../domain/schedules/schedule.js';
import { fromRequestTokens, scheduleSnapshot } from '../../domain/schedules/schedule-tokens.js';
import type { CronCalendar } from '../../ports/cron-calendar.js';
import type { LiveSet } from '../../ports/live-set.js';
import type { ScheduleRun, ScheduleRunRepository } from '../../ports/schedule-run-repository.js';
import { currentTriggers, type TriggerSource } from '../triggers/trigger-source.js';
import type { ChatChannelSettings, MessagingChannels } from '../messaging/messaging-channels.js';
import { nextScheduledRun } from '../schedules/scheduled-run.js';

export interface ServiceFacts {
  readonly version: string;
  readonly startedAt: Date;
  readonly databaseEngine: string;
  readonly jobRunner: string;
}

/** One messaging channel as the admin UI shows it. */
export interface ChannelStatus {
  readonly id: string;
  readonly title: string;
  /** Whether a bot token is configured or registered. */
  readonly configured: boolean;
  /** `POST /api/messaging/<id>/register` exists (the platform's webhook is registered by the gateway). */
  readonly registers: boolean;
  /** The platform's view of the webhook, where it has one and could be asked; null when asking failed (`error`). */
  readonly webhook?: WebhookInfo | null;
  readonly error?: string;
  readonly allowedChatIds: readonly string[];
  /** Whether the gateway fetches the channel's updates by polling instead of taking them at its webhook. */
  readonly polling: boolean;
  /** The channel's variables (bot token, webhook secret, allowed chats). */
  readonly variables: ChatChannelSettings['variables'];
}

/** What the overview reads from. */
export interface AdminOverviewSources {
  readonly triggers: TriggerSource;
  /** The schedules, their record and the problems of the last refused reload; none in tests that do not need them. */
  readonly schedules?: ScheduleSources;
  readonly runs: ActionRunRepository;
  readonly requests: InboundRequestStore;
  readonly jobs: JobRepository;
  readonly figures: CollectOperationalFigures;
  readonly storage: StorageFigures;
  readonly channels: MessagingChannels;
  readonly conversations: ConversationStore;
  readonly facts: ServiceFacts;
  /** The installation's key the runs' fingerprints are made with (RunTriggerSettings.fingerprintKey); none in tests. */
  readonly fingerprintKey?: FingerprintMac;
}

/**
 * An action as it ran, rendered for one request: a command's template and the value each of
 * its tokens gave the command; a webhook's method and target — its URL as shownWebhookTarget
 * shows it (the path and query of a webhook URL often are its secret; its headers may hold
 * secrets and are not shown); an agent action's job.
 */
export type RenderedAction =
  | { readonly type: 'command'; readonly template: string; readonly values: readonly CommandTokenValue[] | null }
  | { readonly type: 'webhook'; readonly method: string; readonly target: string }
  | { readonly type: 'agent'; readonly template: string; readonly jobId: string | null };

/**
 * One action of a trigger run: its record, and the action as configured now (when it still is:
 * null when the trigger, or the action as it ran, is no longer configured — see configuredAction).
 */
export interface ActionRunView {
  readonly run: ActionRun;
  readonly rendered: RenderedAction | null;
}

/** A trigger run (one trigger fired by one request) with everything an operator needs to see. */
export interface TriggerRunView {
  readonly runId: string;
  readonly trigger: string;
  /** Whether the trigger is still configured (the rendering is of the actions as configured now). */
  readonly configured: boolean;
  /** The stored request that fired the run; null when none is stored (any more). */
  readonly request: InboundRequest | null;
  /** For a schedule's run: the schedule and the occurrence it ran for. */
  readonly occurrence?: { readonly schedule: string; readonly at: Date };
  readonly actions: readonly ActionRunView[];
}

/** Where the schedules page reads from. */
export interface ScheduleSources {
  readonly list: LiveSet<readonly Schedule[]>;
  readonly runs: ScheduleRunRepository;
  readonly calendar: CronCalendar;
  /** The problems of the last refused reload of the trigger and schedule files; empty when it succeeded. */
  readonly reloadProblems: () => readonly string[];
}

/** A schedule as the admin UI lists it: when it runs next (null when disabled or never) and what its last occurrence did. */
export interface ScheduleView {
  readonly schedule: Schedule;
  readonly next: Date | null;
  readonly last: ScheduleRun | null;
}

/** What the admin UI's pages show: read-only views over the capabilities. */
export class AdminOverview {
  readonly facts: ServiceFacts;

  constructor(private readonly sources: AdminOverviewSources) {
    this.facts = sources.facts;
  }

  triggers(): readonly Trigger[] {
    return currentTriggers(this.sources.triggers);
  }

  /** Every configured schedule with its next occurrence and its last recorded one. */
  async schedules(now: Date): Promise<ScheduleView[]> {
    const sources = this.sources.schedules;
    if (!sources) return [];
    const latest = await sources.runs.latest();
    return sources.list.current().map((schedule) => ({
      schedule,
      next: schedule.enabled ? nextScheduledRun(sources.calendar, schedule, now) : null,
      last: latest.get(schedule.name) ?? null,
    }));
  }

  /** The recorded occurrences of one schedule, latest first. */
  scheduleRuns(name: string, limit = 50): Promise<ScheduleRun[]> {
    return this.sources.schedules?.runs.forSchedule(name, limit) ?? Promise.resolve([]);
  }

  /** The problems of the last refused reload (shown as a banner); empty when the running files are the files on disk. */
  reloadProblems(): readonly string[] {
    return this.sources.schedules?.reloadProblems() ?? [];
  }

  recentRuns(limit = 50): Promise<ActionRun[]> {
    return this.sources.runs.recent(limit);
  }

  /** One trigger run with its actions rendered for the request that fired it; null when no action of it is recorded. */
  async triggerRun(runId: string): Promise<TriggerRunView | null> {
    const runs = await this.sources.runs.forRun(runId);
    if (runs.length === 0) return null;
    const scheduled = this.#scheduleOfRun(runs);
    if (scheduled) {
      const occurrence = { schedule: String(runs[0].detail.schedule), at: new Date(String(runs[0].detail.occurrence)) };
      return { runId, trigger: runs[0].trigger, configured: scheduled.schedule !== undefined, request: null, occurrence, actions: scheduled.actions };
    }
    const trigger = currentTriggers(this.sources.triggers).find((candidate) => candidate.name === runs[0].trigger);
    const requestId = runs.map((run) => run.detail.requestId).find((id): id is string => typeof id === 'string');
    const request = requestId === undefined ? null : await this.sources.requests.find(requestId);
    const snapshot = request === null ? null : parseSnapshot(request.request);
    return {
      runId,
      trigger: runs[0].trigger,
      configured: trigger !== undefined,
      request,
      actions: runs.map((run) => {
        const action = configuredAction(trigger?.actions, run, this.sources.fingerprintKey);
        return { run, rendered: action === undefined ? null : render(action, run, snapshot) };
      }),
    };
  }

  /**
   * The run of a schedule's occurrence (recorded under `cron:<name>` with its occurrence): its
   * actions rendered with the values they got, templates as written (`{{now}}`); undefined for a trigger's run.
   */
  #scheduleOfRun(runs: readonly ActionRun[]): { schedule: Schedule | undefined; actions: ActionRunView[] } | undefined {
    const { schedule: name, occurrence } = runs[0].detail;
    if (typeof name !== 'string' || typeof occurrence !== 'string' || runs[0].trigger !== scheduleRunName(name)) return undefined;
    const schedule = this.sources.schedules?.list.current().find((candidate) => candidate.name === name);
    const snapshot = scheduleSnapshot(name, new Date(occurrence));
    const asWritten = (rendered: RenderedAction): RenderedAction =>
      rendered.type === 'command'
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
        const action = configuredAction(schedule?.actions, run, this.sources.fingerprintKey);
        return { run, rendered: action === undefined ? null : asWritten(render(action, run, snapshot)) };
      }),
    };
  }

  recentJobs(limit = 50): Promise<Job[]> {
    return this.sources.jobs.list({ statuses: JOB_STATUSES, limit });
  }

  job(id: string): Promise<Job | null> {
    return this.sources.jobs.get(id);
  }

  figures(): Promise<OperationalFigures> {
    return this.sources.figures.execute();
  }

  tableSizes(): Promise<TableSize[]> {
    return this.sources.storage.tableSizes();
  }

  /** Every messaging channel of the gateway, in the registry's order, with its webhook as the platform reports it. */
  channels(): Promise<ChannelStatus[]> {
    return Promise.all(
      this.sources.channels.all.map(async ({ platform, credentials, settings }): Promise<ChannelStatus> => {
        const status = {
          id: platform.id,
          title: platform.title,
          registers: platform.registration !== undefined,
          allowedChatIds: [...settings.allowedChatIds],
          polling: settings.mode === 'polling',
          variables: settings.variables,
        };
        const token = await credentials.current();
        if (token === undefined) return { ...status, configured: false };
        if (platform.registration === undefined) return { ...status, configured: true };
        try {
          return { ...status, configured: true, webhook: await platform.registration.getWebhookInfo(token) };
        } catch (error) {
          return { ...status, configured: true, webhook: null, error: (error as Error).message };
        }
      }),
    );
  }

  conversation(threadId: string, limit = 50): Promise<ConversationTurn[]> {
    return this.sources.conversations.recent(threadId, limit);
  }
}

/**
 * The action, among `actions` as configured now, that a record is of; undefined when there is
 * none (the trigger or schedule is gone, or the action was changed or removed since it ran). A
 * record keeps what its action is (`detail.action`, its actionFingerprint) and is found by it:
 * its `actionIndex` is where the run recorded it, which after a reload of the trigger file need
 * not be the action's place now (RunTrigger's matchRecords). A record written before
 * fingerprints were kept is of the action at its index, if that one is still of its type.
 */
const configuredAction = (actions: readonly TriggerAction[] | undefined, run: ActionRun, key: FingerprintMac | undefined): TriggerAction | undefined => {
  if (actions === undefined) return undefined;
  const fingerprint = run.detail.action;
  if (typeof fingerprint === 'string') return actions.find((action) => isFingerprintOf(fingerprint, action, key));
  const action = actions[run.actionIndex];
  return action !== undefined && action.type === run.type ? action : undefined;
};

const parseSnapshot = (text: string): RequestSnapshot | null => {
  try {
    return parseStoredSnapshot(text);
  } catch {
    return null;
  }
};

const render = (action: TriggerAction, run: ActionRun, request: RequestSnapshot | null): RenderedAction => {
  switch (action.type) {
    case 'command':
      return { type: 'command', template: action.command, values: request === null ? null : commandTokenValues(action.command, request) };
    case 'webhook':
      return { type: 'webhook', method: action.method, target: shownWebhookTarget(action.url) };
    case 'agent':
      return { type: 'agent', template: action.job, jobId: typeof run.detail.jobId === 'string' ? run.detail.jobId : null };
  }
};
