import 'reflect-metadata';
import { runCli } from './cli/runCli.js';

// `npm start` and `node dist/main.js` start the service; every other command is the CLI's.
process.exitCode = await runCli(['serve', ...process.argv.slice(2)]);
