import { JOB_STATUSES, type Job } from '../domain/jobs/Job.js';
import type { ActionRun } from '../domain/triggers/ActionRun.js';
import type { Trigger } from '../domain/triggers/Trigger.js';
import type { ActionRunRepository } from '../ports/ActionRunRepository.js';
import type { BotTokenStore } from '../ports/BotTokenStore.js';
import type { ConversationStore, ConversationTurn } from '../ports/ConversationStore.js';
import type { JobRepository } from '../ports/JobRepository.js';
import type { MessagingChannel, WebhookInfo } from '../ports/MessagingChannel.js';
import type { CollectOperationalFigures, OperationalFigures } from './CollectOperationalFigures.js';

export interface ServiceFacts {
  readonly version: string;
  readonly startedAt: Date;
  readonly databaseEngine: string;
  readonly jobRunner: string;
}

export type MessagingStatus =
  | { readonly configured: false }
  | { readonly configured: true; readonly webhook: WebhookInfo | null; readonly error?: string };

/** What the admin UI's pages show: read-only views over the capabilities. */
export class AdminOverview {
  constructor(
    private readonly triggerList: readonly Trigger[],
    private readonly runs: ActionRunRepository,
    private readonly jobs: JobRepository,
    private readonly figuresOf: CollectOperationalFigures,
    private readonly channel: MessagingChannel,
    private readonly tokens: BotTokenStore,
    private readonly conversations: ConversationStore,
    private readonly allowedChats: ReadonlySet<string>,
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

  allowedChatIds(): string[] {
    return [...this.allowedChats];
  }

  async messaging(): Promise<MessagingStatus> {
    const token = await this.tokens.current();
    if (token === undefined) return { configured: false };
    try {
      return { configured: true, webhook: await this.channel.getWebhookInfo(token) };
    } catch (error) {
      return { configured: true, webhook: null, error: (error as Error).message };
    }
  }

  conversation(threadId: string, limit = 50): Promise<ConversationTurn[]> {
    return this.conversations.recent(threadId, limit);
  }
}
