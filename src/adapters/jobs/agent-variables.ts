import type { SecretStore } from '../../ports/secret-store.js';

/** The `AGENT_*` variables (hidden and `AGENT_LLM_*` alike) as environment entries for a job's processes. */
export const agentEnvironment = (secrets: SecretStore): Record<string, string> =>
  Object.fromEntries(secrets.agentVariables().map(({ name, value }) => [name, value]));
