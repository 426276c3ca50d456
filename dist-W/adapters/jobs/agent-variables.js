/** The `AGENT_*` variables (hidden and `AGENT_LLM_*` alike) as environment entries for a job's processes. */
export const agentEnvironment = (secrets) => Object.fromEntries(secrets.agentVariables().map(({ name, value }) => [name, value]));
//# sourceMappingURL=agent-variables.js.map