import { JOB_STATUSES, type Job } from '../domain/jobs/Job.js';
import type { ActionRun } from '../domain/triggers/ActionRun.js';
import type { Trigger } from '../domain/triggers/Trigger.js';
import type { ActionRunRepository } from '../ports/ActionRunRepository.js';
import type { ConversationStore, ConversationTurn } from '../ports/ConversationStore.js';
import type { JobRepository } from '../ports/JobRepository.js';
import type { WebhookInfo } from '../ports/MessagingChannel.js';
import type { CollectOperationalFigures, OperationalFigures } from './CollectOperationalFigures.js';
import type { ChatChannelSettings, MessagingChannels } from './MessagingChannels.js';

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
  /** The channel's variables (bot token, webhook secret, allowed chats). */
  readonly variables: ChatChannelSettings['variables'];
}

/** What the admin UI's pages show: read-only views over the capabilities. */
export class AdminOverview {
  constructor(
    private readonly triggerList: readonly Trigger[],
    private readonly runs: ActionRunRepository,
    private readonly jobs: JobRepository,
    private readonly figuresOf: CollectOperationalFigures,
    private readonly registry: MessagingChannels,
    private readonly conversations: ConversationStore,
    readonly facts: ServiceFacts,
  ) {}

  triggers(): readonly Trigger[] {
    return this.triggerList;
  }

  recentRuns(limit = 50): Promise<ActionRun[]> {
    return this.runs.recent(limit);
  }

  recentJobs(limit = 50): Promise<Job[]> {
    return this.jobs.list({ statuses: JOB_STATUSES, limit });
  }

  job(id: string): Promise<Job | null> {
    return this.jobs.get(id);
  }

  figures(): Promise<OperationalFigures> {
    return this.figuresOf.execute();
  }

  /** Every messaging channel of the gateway, in the registry's order, with its webhook as the platform reports it. */
  channels(): Promise<ChannelStatus[]> {
    return Promise.all(
      this.registry.all.map(async ({ platform, credentials, settings }): Promise<ChannelStatus> => {
        const status = {
          id: platform.id,
          title: platform.title,
          registers: platform.registration !== undefined,
          allowedChatIds: [...settings.allowedChatIds],
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
    return this.conversations.recent(threadId, limit);
  }
}
