import type { Container } from 'inversify';
import { GithubEvents } from '../../adapters/codehost/GithubEvents.js';
import { GithubSignatureVerifier } from '../../adapters/codehost/GithubSignatureVerifier.js';
import type { Database } from '../../adapters/persistence/Database.js';
import { MikroOrmActionRunRepository } from '../../adapters/persistence/MikroOrmActionRunRepository.js';
import { MikroOrmInboundRequestStore } from '../../adapters/persistence/MikroOrmInboundRequestStore.js';
import { FireTriggers } from '../../application/FireTriggers.js';
import { ReceiveCodehostEvent } from '../../application/ReceiveCodehostEvent.js';
import { RunTrigger, type RunTriggerSettings } from '../../application/RunTrigger.js';
import { commandEnvironment } from '../commandEnvironment.js';
import type { AppConfig } from '../config.js';
import type { Infrastructure } from '../Infrastructure.js';
import { TOKENS } from '../tokens.js';

/** Triggers and their actions, and the code-host webhook that fires them. */
export const bindTriggers = (c: Container, config: AppConfig, infra: Infrastructure): void => {
  c.bind(TOKENS.Triggers).toConstantValue(infra.triggers ?? []);
  c.bind(TOKENS.ActionRunRepository).toResolvedValue((db: Database) => new MikroOrmActionRunRepository(db), [TOKENS.Database]);
  c.bind(TOKENS.InboundRequestStore).toResolvedValue((db: Database) => new MikroOrmInboundRequestStore(db), [TOKENS.Database]);
  c.bind(TOKENS.FireTriggers).toResolvedValue(
    (...deps: ConstructorParameters<typeof FireTriggers>) => new FireTriggers(...deps),
    [TOKENS.Triggers, TOKENS.InboundRequestStore, TOKENS.TaskQueue, TOKENS.IdGenerator, TOKENS.Clock, TOKENS.Logger],
  );
  const runSettings: RunTriggerSettings = {
    triggersDir: config.triggersDir,
    commandTimeoutMs: config.commandTimeoutMs,
    commandEnv: commandEnvironment(infra.env, config.commandEnv),
  };
  c.bind(TOKENS.RunTrigger).toResolvedValue(
    (triggers, runs, requests, shell, forwarder, jobs, ids, clock, logger) =>
      new RunTrigger(triggers, runs, requests, shell, forwarder, jobs, ids, clock, logger, runSettings),
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
    ],
  );
  c.bind(TOKENS.CodehostSignatureVerifier).toConstantValue(new GithubSignatureVerifier(config.codehostWebhookSecret));
  c.bind(TOKENS.CodehostEvents).toConstantValue(new GithubEvents());
  c.bind(TOKENS.ReceiveCodehostEvent).toResolvedValue(
    (...deps: ConstructorParameters<typeof ReceiveCodehostEvent>) => new ReceiveCodehostEvent(...deps),
    [TOKENS.CodehostSignatureVerifier, TOKENS.DeliveryLog, TOKENS.FireTriggers, TOKENS.CodehostEvents, TOKENS.JobRepository, TOKENS.Clock, TOKENS.Logger],
  );
};
