import type { Container } from 'inversify';
import { GithubEvents, NoJobEvents } from '../../adapters/codehost/github-events.js';
import { GithubSignatureVerifier } from '../../adapters/codehost/github-signature-verifier.js';
import { NodeTimer } from '../../adapters/system/node-timer.js';
import { codehostAgentGuard, ReceiveCodehostEvent } from '../../application/codehost/receive-codehost-event.js';
import { RequestAutoMerge } from '../../application/jobs/auto-merge-job.js';
import { RunTrigger, type RunTriggerSettings } from '../../application/triggers/run-trigger.js';
import { AnnounceApproval, AnnouncingApprovalStore } from '../../application/approvals/approvals-in-chat.js';
import { DecideApproval } from '../../application/approvals/decide-approval.js';
import type { MessagingChannels } from '../../application/messaging/messaging-channels.js';
import type { Logger } from '../../ports/logger.js';
import { ExpireApprovals } from '../../application/approvals/expire-approvals.js';
import type { Database } from '../../adapters/persistence/database.js';
import { MikroOrmApprovalStore } from '../../adapters/persistence/mikro-orm-approval-store.js';
import { commandEnvSecrets, commandEnvironment } from '../command-environment.js';
import type { AppConfig } from '../config.js';
import type { Infrastructure } from '../infrastructure.js';
import { Swappable } from '../swappable.js';
import { TOKENS } from '../tokens.js';
import { bindDeliveries, endpointPaths } from './delivery-bindings.js';

/** Triggers and their actions, and the code-host webhook that fires them. */
export const bindTriggers = (c: Container, config: AppConfig, infra: Infrastructure): void => {
  // Replaced as a whole by a reload (ConfigReloader).
  c.bind(TOKENS.Triggers).toConstantValue(new Swappable(infra.triggers ?? []));
  bindDeliveries(c);
  const runSettings: RunTriggerSettings = {
    triggersDir: config.triggersDir,
    commandTimeoutMs: config.commandTimeoutMs,
    commandEnv: commandEnvironment(infra.env, config.commandEnv),
    approvalTimeoutMs: config.approvalTimeoutMs,
    // A queued run whose trigger no longer watches its request's endpoint (by any of its names) is dropped.
    endpointPaths,
  };
  // Each new approval also asks the channels' approval chats (buttons), where configured.
  c.bind(TOKENS.ApprovalStore).toResolvedValue(
    (db: Database, channels: MessagingChannels, logger: Logger) =>
      new AnnouncingApprovalStore(new MikroOrmApprovalStore(db), new AnnounceApproval(channels, logger, config.publicUrl)),
    [TOKENS.Database, TOKENS.MessagingChannels, TOKENS.Logger],
  );
  c.bind(TOKENS.DecideApproval).toResolvedValue(
    (...deps: ConstructorParameters<typeof DecideApproval>) => new DecideApproval(...deps),
    [TOKENS.ApprovalStore, TOKENS.ActionRunRepository, TOKENS.FireTriggers, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.ExpireApprovals).toResolvedValue(
    (...deps: ConstructorParameters<typeof ExpireApprovals>) => new ExpireApprovals(...deps),
    [TOKENS.ApprovalStore, TOKENS.ActionRunRepository, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.RunTrigger).toResolvedValue(
    (
      triggers,
      runs,
      requests,
      shell,
      forwarder,
      jobs,
      ids,
      clock,
      logger,
      approvals,
      startMarks,
      queue,
      lanes,
      secrets,
      fingerprintKey,
      events,
      jobRepository,
    ) => {
      // Redacted from recorded command output: what COMMAND_ENV passes, and the service's own
      // credentials (with the agents' secrets) that a command could read where it runs.
      const redacted = [...commandEnvSecrets(infra.env, config.commandEnv), ...secrets.redactedSecrets()];
      return new RunTrigger(
        triggers,
        runs,
        requests,
        shell,
        forwarder,
        jobs,
        ids,
        clock,
        logger,
        { ...runSettings, redacted, fingerprintKey },
        approvals,
        startMarks,
        new NodeTimer(),
        { queue, lanes },
        // A code-host event of the jobs' own branches, or of a job's auto-merge (its push to main,
        // the runs and checks on the merge commit), runs no agent action (no job feedback loop).
        codehostAgentGuard(events, jobRepository),
      );
    },
    [
      TOKENS.Triggers,
      TOKENS.ActionRunRepository,
      TOKENS.InboundRequestStore,
      TOKENS.ShellExecutor,
      TOKENS.HttpForwarder,
      TOKENS.JobLauncher,
      TOKENS.IdGenerator,
      TOKENS.Clock,
      TOKENS.Logger,
      TOKENS.ApprovalStore,
      TOKENS.StartMarks,
      TOKENS.TaskQueue,
      TOKENS.TriggerLanes,
      TOKENS.SecretStore,
      TOKENS.FingerprintKey,
      TOKENS.CodehostEvents,
      TOKENS.JobRepository,
    ],
  );
  c.bind(TOKENS.CodehostSignatureVerifier).toConstantValue(new GithubSignatureVerifier(config.codehostWebhookSecret));
  c.bind(TOKENS.CodehostEvents).toConstantValue(config.codehost ? new GithubEvents(config.codehost) : new NoJobEvents());
  c.bind(TOKENS.ReceiveCodehostEvent).toResolvedValue(
    (verifier, deliveries, fireTriggers, events, jobs, clock, logger, queue) => {
      const autoMerge = config.codehost?.autoMerge ? new RequestAutoMerge(queue) : undefined;
      return new ReceiveCodehostEvent(
        verifier,
        deliveries,
        fireTriggers,
        events,
        jobs,
        clock,
        logger,
        autoMerge && ((job, cause) => autoMerge.execute(job, cause)),
      );
    },
    [
      TOKENS.CodehostSignatureVerifier,
      TOKENS.DeliveryLog,
      TOKENS.FireTriggers,
      TOKENS.CodehostEvents,
      TOKENS.JobRepository,
      TOKENS.Clock,
      TOKENS.Logger,
      TOKENS.TaskQueue,
    ],
  );
};
