/**
 * `npm start` and `node dist/main.js` start the service; every other command is the CLI's.
 * This entry checks the Node.js version and only then loads the rest: static imports are
 * evaluated before a module's own code, so the check cannot sit next to them.
 */
// A namespace import: a named import of something an older Node.js lacks would fail before the check.
import * as modules from 'node:module';
import { loadBundledDependencies } from './bundled-dependencies.js';
import { refuseUnsupportedNode } from './cli/node-version.js';

refuseUnsupportedNode();
// Node keeps the compiled code of the modules loaded next in its cache directory (under the
// system's temporary directory) and reuses it at the next start, which saves about a tenth of
// the module loading. Where the directory is not writable, modules are compiled as before.
modules.enableCompileCache();
// Kysely, MikroORM, Inversify, zod, pg-boss… from their bundles in dist/vendor (src/build.mjs).
loadBundledDependencies();
await import('./cli/service-main.js');
