import { runCli, SERVING } from './run-cli.js';
// Loaded by src/cli/main.ts once the Node.js version is known to be supported.
const code = await runCli(process.argv.slice(2));
// `serve` keeps running on its own; every other command ends here, whatever it left open.
if (code !== SERVING)
    process.exit(code);
//# sourceMappingURL=cli-main.js.map