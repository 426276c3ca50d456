import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppConfig } from '../../src/container/config.js';

/**
 * The part of the configuration ConfigReloader reads, for files in `dir` (TRIGGERS.json,
 * CRONS.json, a `triggers` directory, made here); jobs run (a coding agent command) unless
 * `jobs` is false.
 */
export const reloaderConfigIn = async (dir: string, { jobs = true }: { readonly jobs?: boolean } = {}): Promise<AppConfig> => {
  await mkdir(join(dir, 'triggers'));
  return {
    triggersFile: join(dir, 'TRIGGERS.json'),
    cronsFile: join(dir, 'CRONS.json'),
    triggersDir: join(dir, 'triggers'),
    codehost: undefined,
    jobs: { agentCommand: jobs ? './agent.sh' : undefined },
    llm: { provider: undefined },
  } as never;
};
