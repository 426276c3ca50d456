import type { NamedSecret } from '../domain/jobs/redact-secrets.js';

/** A variable every agent job gets in its environment (`AGENT_*`). */
export interface AgentVariable extends NamedSecret {
  /**
   * `AGENT_LLM_*`: the model is told the name and may read the value. Every other `AGENT_*`
   * is hidden from the model: its value is redacted from whatever the model reads.
   */
  readonly offeredToModel: boolean;
}

/** The secrets agents receive: one per LLM provider, and the `AGENT_*` variables of jobs. */
export interface SecretStore {
  /** The name of the variable that holds a provider's secret, for messages (never its value). */
  secretName(provider: string): string;
  /** The secret, or undefined when it is not set. `custom` may legitimately have none. */
  providerSecret(provider: string): string | undefined;
  /** Whether jobs for `provider` can run: its secret is set, or it does not need one. */
  hasUsableSecret(provider: string): boolean;
  /** The `AGENT_*` variables (`AGENT_LLM_*` among them), sorted by name; empty when none is set. */
  agentVariables(): readonly AgentVariable[];
  /**
   * Every secret value no model may read and no job log may keep: the hidden `AGENT_*`
   * variables, the provider secrets that are set, and the service's own credentials (which a job
   * never gets, but could read where it runs as the service's user). Redact these from text a
   * model reads.
   */
  redactedSecrets(): readonly NamedSecret[];
}
