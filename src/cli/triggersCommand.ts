import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { loadTriggerFile } from '../adapters/triggerfile/JsonTriggerFile.js';
import { AI_PROVIDERS } from '../adapters/ai/aiProviders.js';
import { EnvironmentSecretStore } from '../adapters/secrets/EnvironmentSecretStore.js';
import { checkTriggerSecrets } from '../application/checkTriggerSecrets.js';
import type { AppConfig } from '../container/config.js';
import { triggerCatalog } from '../container/triggerCatalog.js';
import { UsageError } from './UsageError.js';

/** `triggers check [--file F]`: the start-up validation of the trigger file, without starting anything. */
export const triggersCommand = async (argv: string[], config: AppConfig, out: NodeJS.WritableStream): Promise<number> => {
  const [action, ...rest] = argv;
  if (action !== 'check') throw new UsageError(action === undefined ? 'triggers needs check' : `Unknown triggers command: ${action}`);
  const { values } = parseArgs({ args: rest, options: { file: { type: 'string' } }, strict: true });
  const file = values.file !== undefined ? resolve(values.file) : config.triggersFile;
  const loaded = await loadTriggerFile(file, triggerCatalog());
  const problems = loaded.problems.length > 0 ? loaded.problems : checkTriggerSecrets(loaded.triggers, new EnvironmentSecretStore(process.env, AI_PROVIDERS), file);
  if (problems.length > 0) {
    for (const problem of problems) process.stderr.write(`${problem}\n`);
    process.stderr.write(`${problems.length} problem${problems.length === 1 ? '' : 's'} found\n`);
    return 1;
  }
  if (loaded.missing) {
    out.write(`${file} does not exist: the service runs with no triggers\n`);
    return 0;
  }
  const enabled = loaded.triggers.filter((t) => t.enabled).length;
  out.write(`${file}: ${loaded.triggers.length} trigger${loaded.triggers.length === 1 ? '' : 's'} valid (${enabled} enabled)\n`);
  for (const trigger of loaded.triggers) {
    out.write(`  ${trigger.enabled ? 'on ' : 'off'}  ${trigger.name}  ${trigger.watchPath}  ${trigger.actions.map((a) => a.type).join(' → ')}\n`);
  }
  return 0;
};
