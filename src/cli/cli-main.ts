import { exitWhenFlushed } from './exit-when-flushed.js';
import { runCli, SERVING } from './run-cli.js';

// Loaded by src/cli/main.ts once the Node.js version is known to be supported.
const code = await runCli(process.argv.slice(2));
// `serve` keeps running on its own; every other command ends here, whatever it left open,
// once its output has reached the terminal or the pipe it goes to.
if (code !== SERVING) await exitWhenFlushed(code, [process.stdout, process.stderr]);
