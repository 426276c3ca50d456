import 'reflect-metadata';
import { runCli } from './runCli.js';

// Loaded by src/cli/main.ts once the Node.js version is known to be supported.
const code = await runCli(process.argv.slice(2));
// `serve` keeps running on its own; every other command, and a failed start, ends here.
if (process.argv[2] !== 'serve' || code !== 0) process.exit(code);
