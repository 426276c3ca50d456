import { resolve } from 'node:path';
import { readConfig } from './command-context.js';
/** `triggers check [--file F]`: the start-up validation of the trigger file, without starting anything. */
export const checkTriggers = async ({ values }, io) => {
    const config = await readConfig();
    const { loadTriggerFile } = await import('../adapters/triggerfile/json-trigger-file.js');
    const { EnvironmentSecretStore } = await import('../adapters/secrets/environment-secret-store.js');
    const { checkTriggerSecrets } = await import('../application/triggers/check-trigger-secrets.js');
    const { triggerCatalog } = await import('../container/trigger-catalog.js');
    const { AI_PROVIDERS } = await import('../adapters/ai/ai-providers.js');
    const file = typeof values.file === 'string' ? resolve(values.file) : config.triggersFile;
    const loaded = await loadTriggerFile(file, triggerCatalog());
    const problems = loaded.problems.length > 0 ? loaded.problems : checkTriggerSecrets(loaded.triggers, new EnvironmentSecretStore(process.env, AI_PROVIDERS), file);
    if (problems.length > 0) {
        for (const problem of problems)
            io.err.write(`${problem}\n`);
        io.err.write(`${problems.length} problem${problems.length === 1 ? '' : 's'} found\n`);
        return 1;
    }
    if (loaded.missing) {
        io.out.write(`${file} does not exist: the service runs with no triggers\n`);
        return 0;
    }
    const enabled = loaded.triggers.filter((t) => t.enabled).length;
    io.out.write(`${file}: ${loaded.triggers.length} trigger${loaded.triggers.length === 1 ? '' : 's'} valid (${enabled} enabled)\n`);
    for (const trigger of loaded.triggers) {
        io.out.write(`  ${trigger.enabled ? 'on ' : 'off'}  ${trigger.name}  ${trigger.watchPath}  ${trigger.actions.map((a) => a.type).join(' → ')}\n`);
    }
    return 0;
};
//# sourceMappingURL=triggers-command.js.map