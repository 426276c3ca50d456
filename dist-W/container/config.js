import { codehostSchema, jobsSchema, llmSchema } from './config/agents.js';
import { channelsSchema } from './config/channels.js';
import { chatSchema } from './config/chat.js';
import { retentionSchema } from './config/retention.js';
import { codehostWebhookSchema, serverSchema } from './config/server.js';
import { transcriptionSchema } from './config/transcription.js';
import { queueSchema, triggersSchema } from './config/triggers.js';
export { parseSize } from './config/fields.js';
/** Start-up configuration problems, one line per variable. */
export class ConfigError extends Error {
    problems;
    constructor(problems, heading = 'Invalid configuration') {
        super(`${heading}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
        this.problems = problems;
        this.name = 'ConfigError';
    }
}
/** One schema per capability (`config/*.ts`); their results together are the configuration. */
const capabilities = (cwd, dataDir) => [
    serverSchema(cwd),
    triggersSchema(cwd),
    codehostWebhookSchema,
    queueSchema,
    chatSchema(cwd),
    channelsSchema,
    llmSchema,
    transcriptionSchema,
    codehostSchema,
    jobsSchema(cwd, dataDir),
    retentionSchema,
];
/**
 * Reads and validates the configuration: every capability's schema is checked, and one
 * ConfigError lists every problem, each naming its variable (`PORT: "x" is not …`).
 */
export const loadConfig = (env, cwd = process.cwd()) => {
    const problems = [];
    const server = serverSchema(cwd).safeParse(env);
    const dataDir = server.success ? server.data.dataDir : cwd;
    let config = {};
    for (const schema of capabilities(cwd, dataDir)) {
        const result = schema.safeParse(env);
        if (result.success)
            config = { ...config, ...result.data };
        else
            for (const issue of result.error.issues)
                problems.push(`${issue.path.join('.')}: ${issue.message}`);
    }
    if (problems.length > 0)
        throw new ConfigError(problems);
    return config;
};
//# sourceMappingURL=config.js.map