/**
 * Makes this process load the dependencies src/build.mjs bundled into dist/vendor/ from there
 * instead of node_modules: a resolve hook maps each specifier dist/vendor/modules.json lists
 * (`kysely`, `@mikro-orm/core`, …) to its bundle, for every importer, so that one copy of each
 * is loaded. Called by the built entry points before they load anything else.
 *
 * Without the file (a build that bundled nothing) or on a Node.js without `registerHooks`
 * (before 22.15), the dependencies load from node_modules as usual: the same code, only more
 * files to read. A file that is not such a list ends the process with one line and exit code 1.
 */
// A namespace import: a named import of something an older Node.js lacks would fail at link time.
import * as modules from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const readList = (file: URL): Map<string, string> | undefined => {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return refuse(file, (error as Error).message);
  }
  let listed: unknown;
  try {
    listed = JSON.parse(text);
  } catch (error) {
    return refuse(file, (error as Error).message);
  }
  if (typeof listed !== 'object' || listed === null || Array.isArray(listed)) return refuse(file, 'not a JSON object');
  const bundles = new Map<string, string>();
  for (const [specifier, name] of Object.entries(listed)) {
    if (typeof name !== 'string' || !/^[\w.-]+\.js$/.test(name)) return refuse(file, `"${specifier}" does not name a .js file in dist/vendor`);
    bundles.set(specifier, new URL(name, file).href);
  }
  return bundles;
};

const refuse = (file: URL, why: string): never => {
  process.stderr.write(`agent-gateway: ${fileURLToPath(file)} is not a list of bundled dependencies (${why}); build again with: npm run build\n`);
  process.exit(1);
};

export const loadBundledDependencies = (vendor: URL = new URL('./vendor/', import.meta.url)): void => {
  if (modules.registerHooks === undefined) return;
  const bundles = readList(new URL('modules.json', vendor));
  if (bundles === undefined || bundles.size === 0) return;
  modules.registerHooks({
    resolve: (specifier, context, nextResolve) => {
      const url = bundles.get(specifier);
      return url === undefined ? nextResolve(specifier, context) : { url, format: 'module', shortCircuit: true };
    },
  });
};
