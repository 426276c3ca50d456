/**
 * `npm start` and `node dist/main.js` start the service; every other command is the CLI's.
 * This entry checks the Node.js version and only then loads the rest: static imports are
 * evaluated before a module's own code, so the check cannot sit next to them.
 */
// A namespace import: a named import of something an older Node.js lacks would fail before the check.
import * as modules from 'node:module';
import { keepNextTickFast } from './adapters/system/next-tick-shape.js';
import { loadBundledDependencies } from './bundled-dependencies.js';
import { refuseUnsupportedNode } from './cli/node-version.js';
import { holdStartSignals } from './cli/start-signals.js';

refuseUnsupportedNode();
// A stop asked for while the service loads is carried out gracefully once it has started (serve.ts).
holdStartSignals();
// Before start-up's garbage collections, which could leave every process.nextTick on V8's slow path for good.
keepNextTickFast();
// The service takes no arguments (its configuration is the environment and .env): an argument is
// a command meant for the CLI, or a mistake, and must not start a server in the working directory.
const args = process.argv.slice(2);
if (args.length > 0) {
  const help = args.length === 1 && (args[0] === '--help' || args[0] === '-h' || args[0] === 'help');
  const text =
    'node dist/main.js (npm start) starts the service and takes no arguments: its settings come from the environment and .env (docs/configuration.md).\n' +
    'Commands (keys, migrate, triggers check, …) are the CLI\'s: agent-gateway <command>, or node dist/cli/main.js <command>; "agent-gateway help" lists them.\n';
  if (help) process.stdout.write(text);
  else {
    // The argument cut as other refused values are (its first 40 characters and …), then
    // escaped, on one line: it cannot rewrite the terminal, forge a line of stderr nor fill it.
    const [{ terminalField }, { shownInput }] = await Promise.all([import('./cli/terminal-text.js'), import('./domain/errors/shown-input.js')]);
    process.stderr.write(`Unexpected argument "${terminalField(shownInput(args[0]))}". ${text}`);
  }
  process.exit(help ? 0 : 2);
}
// Node keeps the compiled code of the modules loaded next in its cache directory (under the
// system's temporary directory) and reuses it at the next start, which saves about a tenth of
// the module loading. Where the directory is not writable, modules are compiled as before.
modules.enableCompileCache();
// Kysely, MikroORM, Inversify, zod, pg-boss… from their bundles in dist/vendor (src/build.mjs).
loadBundledDependencies();
await import('./cli/service-main.js');
