import type { ServiceIdentifier } from 'inversify';
import type Koa from 'koa';
import type { Logger as Pino } from 'pino';
import type { KeyAdministration } from '../application/auth/api-key-administration.js';
import type { AuthenticateApiKey } from '../application/auth/authenticate-api-key.js';
import type { CreateApiKey } from '../application/auth/create-api-key.js';
import type { CreateJob } from '../application/jobs/create-job.js';
import type { CreateJobOnce } from '../application/jobs/create-job-once.js';
import type { ListApiKeys } from '../application/auth/list-api-keys.js';
import type { RevokeApiKey } from '../application/auth/revoke-api-key.js';
import type { Database } from '../adapters/persistence/database.js';
import type { PrometheusMetrics } from '../adapters/http/prometheus-metrics.js';
import type { CancelJob } from '../application/jobs/cancel-job.js';
import type { DeliveryHistory } from '../application/triggers/delivery-history.js';
import type { JournaledIntake } from '../application/triggers/journaled-intake.js';
import type { FileIntakeJournal } from '../adapters/intake/file-intake-journal.js';
import type { FireTriggers } from '../application/triggers/fire-triggers.js';
import type { DispatchTriggerRuns } from '../application/triggers/dispatch-trigger-runs.js';
import type { Headroom } from '../ports/headroom.js';
import type { GetJobStatus } from '../application/jobs/get-job-status.js';
import type { RunJob } from '../application/jobs/run-job.js';
import type { RequeueStrandedJobs } from '../application/jobs/requeue-stranded-jobs.js';
import type { RequeueLostJobNotices } from '../application/messaging/requeue-lost-job-notices.js';
import type { NotifyChatOfJob } from '../application/messaging/notify-chat-of-job.js';
import type { PollJobs } from '../application/jobs/poll-jobs.js';
import type { AutoMergeJob } from '../application/jobs/auto-merge-job.js';
import type { CodehostEvents } from '../ports/codehost-events.js';
import type { AiClient } from '../ports/ai-client.js';
import type { CheckReadiness } from '../application/operations/check-readiness.js';
import type { AdminAuthentication } from '../application/auth/admin-authentication.js';
import type { AdminOverview } from '../application/operations/admin-overview.js';
import type { ChatAgent } from '../application/messaging/chat-agent.js';
import type { ReceiveMessagingUpdate } from '../application/messaging/receive-messaging-update.js';
import type { RegisterMessagingWebhook } from '../application/messaging/register-messaging-webhook.js';
import type { ReplyToChatMessage } from '../application/messaging/reply-to-chat-message.js';
import type { PollMessagingUpdates } from '../application/messaging/poll-messaging-updates.js';
import type { ScheduleRetentionSweep } from '../application/retention/schedule-retention-sweep.js';
import type { SweepExpiredData } from '../application/retention/sweep-expired-data.js';
import type { ConversationStore } from '../ports/conversation-store.js';
import type { MessagingChannels } from '../application/messaging/messaging-channels.js';
import type { JobRepository } from '../ports/job-repository.js';
import type { JobRunner } from '../ports/job-runner.js';
import type { SecretStore } from '../ports/secret-store.js';
import type { ReceiveCodehostEvent } from '../application/codehost/receive-codehost-event.js';
import type { RunTrigger } from '../application/triggers/run-trigger.js';
import type { Trigger } from '../domain/triggers/trigger.js';
import type { Schedule } from '../domain/schedules/schedule.js';
import type { RunSchedule } from '../application/schedules/run-schedule.js';
import type { Scheduler } from '../application/schedules/scheduler.js';
import type { CronCalendar } from '../ports/cron-calendar.js';
import type { ScheduleRunRepository } from '../ports/schedule-run-repository.js';
import type { ConfigReloader } from './config-reloader.js';
import type { Swappable } from './swappable.js';
import type { ActionRunRepository } from '../ports/action-run-repository.js';
import type { FingerprintKey } from '../ports/fingerprint-key.js';
import type { ApiKeyCrypto } from '../ports/api-key-crypto.js';
import type { DeliveryLog } from '../ports/delivery-log.js';
import type { InboundRequestStore } from '../ports/inbound-request-store.js';
import type { ApprovalStore } from '../ports/approval-store.js';
import type { DecideApproval } from '../application/approvals/decide-approval.js';
import type { ExpireApprovals } from '../application/approvals/expire-approvals.js';
import type { TriggerLanes } from '../ports/trigger-lanes.js';
import type { IdempotencyKeyStore } from '../ports/idempotency-key-store.js';
import type { HttpForwarder } from '../ports/http-forwarder.js';
import type { JobLauncher } from '../ports/job-launcher.js';
import type { ShellExecutor } from '../ports/shell-executor.js';
import type { StartMarks } from '../ports/start-marks.js';
import type { TaskQueue } from '../ports/task-queue.js';
import type { WebhookSignatureVerifier } from '../ports/webhook-signature-verifier.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { KeyRepository } from '../ports/key-repository.js';
import type { Logger } from '../ports/logger.js';
import type { AppConfig } from './config.js';

const token = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`agent-gateway.${name}`);

/** Every binding of the composition root. */
export const TOKENS = {
  Config: token<AppConfig>('Config'),
  Pino: token<Pino>('Pino'),
  Logger: token<Logger>('Logger'),
  Database: token<Database>('Database'),
  Clock: token<Clock>('Clock'),
  IdGenerator: token<IdGenerator>('IdGenerator'),
  ApiKeyCrypto: token<ApiKeyCrypto>('ApiKeyCrypto'),
  KeyRepository: token<KeyRepository>('KeyRepository'),
  AuthenticateApiKey: token<AuthenticateApiKey>('AuthenticateApiKey'),
  CreateApiKey: token<CreateApiKey>('CreateApiKey'),
  ListApiKeys: token<ListApiKeys>('ListApiKeys'),
  RevokeApiKey: token<RevokeApiKey>('RevokeApiKey'),
  KeyAdministration: token<KeyAdministration>('KeyAdministration'),
  CreateJob: token<CreateJob>('CreateJob'),
  CreateJobOnce: token<CreateJobOnce>('CreateJobOnce'),
  Triggers: token<Swappable<readonly Trigger[]>>('Triggers'),
  Schedules: token<Swappable<readonly Schedule[]>>('Schedules'),
  ScheduleRunRepository: token<ScheduleRunRepository>('ScheduleRunRepository'),
  CronCalendar: token<CronCalendar>('CronCalendar'),
  RunSchedule: token<RunSchedule>('RunSchedule'),
  Scheduler: token<Scheduler>('Scheduler'),
  ConfigReloader: token<ConfigReloader>('ConfigReloader'),
  TaskQueue: token<TaskQueue>('TaskQueue'),
  ShellExecutor: token<ShellExecutor>('ShellExecutor'),
  StartMarks: token<StartMarks>('StartMarks'),
  HttpForwarder: token<HttpForwarder>('HttpForwarder'),
  JobLauncher: token<JobLauncher>('JobLauncher'),
  ActionRunRepository: token<ActionRunRepository>('ActionRunRepository'),
  DeliveryLog: token<DeliveryLog>('DeliveryLog'),
  InboundRequestStore: token<InboundRequestStore>('InboundRequestStore'),
  /** The embedded database's intake journals (none on PostgreSQL), and the intake taking turns on them. */
  IntakeJournals: token<readonly FileIntakeJournal[]>('IntakeJournals'),
  JournaledIntake: token<JournaledIntake | null>('JournaledIntake'),
  ApprovalStore: token<ApprovalStore>('ApprovalStore'),
  DecideApproval: token<DecideApproval>('DecideApproval'),
  ExpireApprovals: token<ExpireApprovals>('ExpireApprovals'),
  TriggerLanes: token<TriggerLanes>('TriggerLanes'),
  IdempotencyKeyStore: token<IdempotencyKeyStore>('IdempotencyKeyStore'),
  CodehostSignatureVerifier: token<WebhookSignatureVerifier>('CodehostSignatureVerifier'),
  FireTriggers: token<FireTriggers>('FireTriggers'),
  DispatchTriggerRuns: token<DispatchTriggerRuns>('DispatchTriggerRuns'),
  Headroom: token<Headroom>('Headroom'),
  DeliveryHistory: token<DeliveryHistory>('DeliveryHistory'),
  RunTrigger: token<RunTrigger>('RunTrigger'),
  FingerprintKey: token<FingerprintKey>('FingerprintKey'),
  ReceiveCodehostEvent: token<ReceiveCodehostEvent>('ReceiveCodehostEvent'),
  SecretStore: token<SecretStore>('SecretStore'),
  JobRepository: token<JobRepository>('JobRepository'),
  JobRunner: token<JobRunner>('JobRunner'),
  GetJobStatus: token<GetJobStatus>('GetJobStatus'),
  RunJob: token<RunJob>('RunJob'),
  RequeueStrandedJobs: token<RequeueStrandedJobs>('RequeueStrandedJobs'),
  RequeueLostJobNotices: token<RequeueLostJobNotices>('RequeueLostJobNotices'),
  NotifyChatOfJob: token<NotifyChatOfJob>('NotifyChatOfJob'),
  CancelJob: token<CancelJob>('CancelJob'),
  PollJobs: token<PollJobs>('PollJobs'),
  AutoMergeJob: token<AutoMergeJob>('AutoMergeJob'),
  CodehostEvents: token<CodehostEvents>('CodehostEvents'),
  AiClient: token<AiClient>('AiClient'),
  CheckReadiness: token<CheckReadiness>('CheckReadiness'),
  AdminAuthentication: token<AdminAuthentication>('AdminAuthentication'),
  AdminOverview: token<AdminOverview>('AdminOverview'),
  MessagingChannels: token<MessagingChannels>('MessagingChannels'),
  ConversationStore: token<ConversationStore>('ConversationStore'),
  ChatAgent: token<ChatAgent>('ChatAgent'),
  RegisterMessagingWebhook: token<RegisterMessagingWebhook>('RegisterMessagingWebhook'),
  ReceiveMessagingUpdate: token<ReceiveMessagingUpdate>('ReceiveMessagingUpdate'),
  ReplyToChatMessage: token<ReplyToChatMessage>('ReplyToChatMessage'),
  PollMessagingUpdates: token<PollMessagingUpdates>('PollMessagingUpdates'),
  HttpApp: token<Koa>('HttpApp'),
  /** GET /metrics and the request figures; the HTTP server also counts the requests it rejects into it. */
  Metrics: token<PrometheusMetrics>('Metrics'),
  SweepExpiredData: token<SweepExpiredData>('SweepExpiredData'),
  ScheduleRetentionSweep: token<ScheduleRetentionSweep>('ScheduleRetentionSweep'),
} as const;
