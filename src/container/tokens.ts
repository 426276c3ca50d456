import type { ServiceIdentifier } from 'inversify';
import type Koa from 'koa';
import type { Logger as Pino } from 'pino';
import type { KeyAdministration } from '../application/ApiKeyAdministration.js';
import type { AuthenticateApiKey } from '../application/AuthenticateApiKey.js';
import type { CreateApiKey } from '../application/CreateApiKey.js';
import type { CreateJob } from '../application/CreateJob.js';
import type { ListApiKeys } from '../application/ListApiKeys.js';
import type { RevokeApiKey } from '../application/RevokeApiKey.js';
import type { Database } from '../adapters/persistence/Database.js';
import type { CancelJob } from '../application/CancelJob.js';
import type { FireTriggers } from '../application/FireTriggers.js';
import type { GetJobStatus } from '../application/GetJobStatus.js';
import type { RunJob } from '../application/RunJob.js';
import type { PollJobs } from '../application/PollJobs.js';
import type { CodehostEvents } from '../ports/CodehostEvents.js';
import type { AiClient } from '../ports/AiClient.js';
import type { CheckReadiness } from '../application/CheckReadiness.js';
import type { AdminAuthentication } from '../application/AdminAuthentication.js';
import type { AdminOverview } from '../application/AdminOverview.js';
import type { ChatAgent } from '../application/ChatAgent.js';
import type { ReceiveMessagingUpdate } from '../application/ReceiveMessagingUpdate.js';
import type { RegisterMessagingWebhook } from '../application/RegisterMessagingWebhook.js';
import type { ReplyToChatMessage } from '../application/ReplyToChatMessage.js';
import type { ScheduleRetentionSweep } from '../application/ScheduleRetentionSweep.js';
import type { SweepExpiredData } from '../application/SweepExpiredData.js';
import type { ConversationStore } from '../ports/ConversationStore.js';
import type { MessagingChannels } from '../application/MessagingChannels.js';
import type { JobRepository } from '../ports/JobRepository.js';
import type { JobRunner } from '../ports/JobRunner.js';
import type { SecretStore } from '../ports/SecretStore.js';
import type { ReceiveCodehostEvent } from '../application/ReceiveCodehostEvent.js';
import type { RunTrigger } from '../application/RunTrigger.js';
import type { Trigger } from '../domain/triggers/Trigger.js';
import type { ActionRunRepository } from '../ports/ActionRunRepository.js';
import type { ApiKeyCrypto } from '../ports/ApiKeyCrypto.js';
import type { DeliveryLog } from '../ports/DeliveryLog.js';
import type { InboundRequestStore } from '../ports/InboundRequestStore.js';
import type { HttpForwarder } from '../ports/HttpForwarder.js';
import type { JobLauncher } from '../ports/JobLauncher.js';
import type { ShellExecutor } from '../ports/ShellExecutor.js';
import type { TaskQueue } from '../ports/TaskQueue.js';
import type { WebhookSignatureVerifier } from '../ports/WebhookSignatureVerifier.js';
import type { Clock } from '../ports/Clock.js';
import type { IdGenerator } from '../ports/IdGenerator.js';
import type { KeyRepository } from '../ports/KeyRepository.js';
import type { Logger } from '../ports/Logger.js';
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
  Triggers: token<readonly Trigger[]>('Triggers'),
  TaskQueue: token<TaskQueue>('TaskQueue'),
  ShellExecutor: token<ShellExecutor>('ShellExecutor'),
  HttpForwarder: token<HttpForwarder>('HttpForwarder'),
  JobLauncher: token<JobLauncher>('JobLauncher'),
  ActionRunRepository: token<ActionRunRepository>('ActionRunRepository'),
  DeliveryLog: token<DeliveryLog>('DeliveryLog'),
  InboundRequestStore: token<InboundRequestStore>('InboundRequestStore'),
  CodehostSignatureVerifier: token<WebhookSignatureVerifier>('CodehostSignatureVerifier'),
  FireTriggers: token<FireTriggers>('FireTriggers'),
  RunTrigger: token<RunTrigger>('RunTrigger'),
  ReceiveCodehostEvent: token<ReceiveCodehostEvent>('ReceiveCodehostEvent'),
  SecretStore: token<SecretStore>('SecretStore'),
  JobRepository: token<JobRepository>('JobRepository'),
  JobRunner: token<JobRunner>('JobRunner'),
  GetJobStatus: token<GetJobStatus>('GetJobStatus'),
  RunJob: token<RunJob>('RunJob'),
  CancelJob: token<CancelJob>('CancelJob'),
  PollJobs: token<PollJobs>('PollJobs'),
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
  HttpApp: token<Koa>('HttpApp'),
  SweepExpiredData: token<SweepExpiredData>('SweepExpiredData'),
  ScheduleRetentionSweep: token<ScheduleRetentionSweep>('ScheduleRetentionSweep'),
} as const;
