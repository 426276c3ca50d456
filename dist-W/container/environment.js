import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from './config.js';
/**
 * Reads `.env` from the working directory when present (variables already set in the
 * environment win), then validates the configuration.
 */
export const configFromEnvironment = (cwd = process.cwd()) => {
    const file = resolve(cwd, '.env');
    if (existsSync(file))
        process.loadEnvFile(file);
    return loadConfig(process.env, cwd);
};
//# sourceMappingURL=environment.js.map