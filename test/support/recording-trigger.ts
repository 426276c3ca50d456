import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { migratedDataDir } from './data-dirs.js';
import { tempDir } from './gateway-process.js';

/**
 * A migrated embedded DATA_DIR and a trigger file with one trigger, `run`, on `/webhook`, whose
 * command appends the body's `id` to `ran.txt`; `ran()` gives the ids run so far, sorted (one per run).
 */
export const recordingTriggerSetUp = async (label: string, env: Record<string, string> = {}) => {
  const dataDir = await migratedDataDir(`e2e-${label}`);
  const dir = await tempDir(`e2e-${label}-files`);
  const triggersFile = join(dir, 'TRIGGERS.json');
  await writeFile(
    triggersFile,
    JSON.stringify([{ name: 'run', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: "printf '%s\\n' {{body.id}} >> ran.txt" }] }]),
  );
  const ran = async () =>
    (await readFile(join(dir, 'ran.txt'), 'utf8').catch(() => ''))
      .split('\n')
      .filter((line) => line !== '')
      .sort();
  return { env: { DATA_DIR: dataDir, TRIGGERS_FILE: triggersFile, TRIGGERS_DIR: dir, ...env }, dataDir, dir, ran };
};
