// Preloaded into the gateway by bench/memory.mjs (NODE_OPTIONS=--import): on SIGUSR2, runs a
// full garbage collection when the process has --expose-gc, and appends one JSON line with
// process.memoryUsage() of the main thread (rss is the whole process: every thread, PGlite's
// WebAssembly memory included) to $MEMORY_PROBE_FILE.
import { appendFileSync } from 'node:fs';

const file = process.env.MEMORY_PROBE_FILE;
if (file) {
  process.on('SIGUSR2', () => {
    globalThis.gc?.();
    const usage = process.memoryUsage();
    appendFileSync(file, `${JSON.stringify({ at: Date.now(), ...usage })}\n`);
  });
}
