import { readFileSync } from 'node:fs';

/** Gives the event loop a turn: requests that arrived meanwhile are answered before the next step. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Loads the modules `list` names (dist/load-steps.json, written by src/build.mjs: the modules
 * dist/cli/serve.js loads, each after what it imports, as Node would evaluate them) one at a
 * time, with a turn of the event loop after each, so that the early intake answers requests
 * while the service loads. Loaded in one go, as `import('./serve.js')` does, the ~300 modules
 * held the main thread for about half a second after the port was bound: the early intake,
 * listening, answered its first request ~0.7 s after a restart instead of ~0.25 s
 * (bench/README.md, "Measurements behind the code").
 *
 * Only a speed-up: the caller imports serve.js afterwards in any case, which loads whatever is
 * left and fails as it would have. So a list that is missing or not a list of strings is
 * ignored, and the first step that fails to load ends the steps. `load` imports one step
 * (`dir/file.js` relative to `base`, or `pkg:<specifier>`).
 */
export const loadInSteps = async (list: URL, base: URL, load: (specifier: string) => Promise<unknown> = (specifier) => import(specifier)): Promise<number> => {
  let steps: unknown;
  try {
    steps = JSON.parse(readFileSync(list, 'utf8'));
  } catch {
    return 0;
  }
  if (!Array.isArray(steps)) return 0;
  let loaded = 0;
  for (const step of steps) {
    if (typeof step !== 'string') return loaded;
    try {
      await load(step.startsWith('pkg:') ? step.slice('pkg:'.length) : new URL(step, base).href);
    } catch {
      return loaded;
    }
    loaded++;
    await turn();
  }
  return loaded;
};
