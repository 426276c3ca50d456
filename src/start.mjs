// `npm start`: compiles when a source changed since the last build (src/build.mjs, in a process
// of its own), then starts the service (dist/main.js) in this process. The check is a look at
// the sources' modification times; run as a process of its own before the service's, as it
// was, Node's own start made it ~0.1 s of every start (bench/README.md, "Measurements behind the code").
// Plain JavaScript, as src/build.mjs: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
// Refuses an unsupported Node.js with one line, before anything else runs.
import { isCurrent } from './build.mjs';

if (!isCurrent()) {
  // A few seconds without a word otherwise, before the service's first line.
  process.stderr.write('sources changed since the last build: building (src/build.mjs)…\n');
  const built = spawnSync(process.execPath, [fileURLToPath(new URL('./build.mjs', import.meta.url))], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
await import('../dist/main.js');
