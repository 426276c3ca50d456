#!/usr/bin/env node
/**
 * The `agent-gateway` command. Checks the Node.js version and only then loads the rest
 * (static imports would be evaluated before the check).
 */
// A namespace import: a named import of something an older Node.js lacks would fail before the check.
import * as modules from 'node:module';
import { loadBundledDependencies } from '../bundled-dependencies.js';
import { refuseUnsupportedNode } from './node-version.js';

refuseUnsupportedNode();
// Node keeps the compiled code of the modules loaded next in its cache directory (under the
// system's temporary directory) and reuses it at the next run. Where the directory is not
// writable, modules are compiled as before.
modules.enableCompileCache?.();
// Kysely, MikroORM, Inversify, zod… from their bundles in dist/vendor (src/build.mjs).
loadBundledDependencies();
await import('./cli-main.js');
