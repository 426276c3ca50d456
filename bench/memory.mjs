// Scenario "memory" (issue 15.1): the gateway's resident memory (RSS, the whole process: main
// thread, the embedded database's thread and its WebAssembly memory) idle after start-up and after
// BENCH_MEMORY_LOAD_SECONDS (60) of webhook load, per engine, BENCH_MEMORY_RUNS (3) times; medians
// against the targets. The gateway's V8 heap is read too (bench/memory-probe.mjs, preloaded), so the
// rest of the RSS (native memory: PGlite's WebAssembly heap, the threads, code) can be told apart.
// Usage: node bench/memory.mjs (after a build); BENCH_ENGINES, BENCH_CONNECTIONS apply.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  ROOT,
  SETTINGS,
  createApiKey,
  round,
  runMeta,
  runStandalone,
  sampleRequest,
  selectedEngines,
  setUpEngine,
  sleep,
  startGateway,
  statusCounts,
  stopGateway,
  tempDir,
} from './lib.mjs';

const number = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}: "${process.env[name]}" is not a positive number`);
  return value;
};
const RUNS = number('BENCH_MEMORY_RUNS', 3);
const IDLE_SECONDS = number('BENCH_MEMORY_IDLE_SECONDS', 15);
const LOAD_SECONDS = number('BENCH_MEMORY_LOAD_SECONDS', 60);
/** Targets in MB (issue 15.1); postgres after load has none. */
const TARGETS = { embedded: { idle: 250, loaded: 350 }, postgres: { idle: 150 } };
const MB = 1024 * 1024;
/** BENCH_GATEWAY_ENV="NAME=value,NAME=value": extra environment of the gateway, to try a knob (e.g. MALLOC_ARENA_MAX=2). */
const EXTRA_ENV = Object.fromEntries(
  (process.env.BENCH_GATEWAY_ENV ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

/** VmRSS, RssAnon and RssFile of a process, in MB (Linux /proc). */
const rssOf = async (pid) => {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'))?.[1] ?? Number.NaN) / 1024;
  return { rss: field('VmRSS'), anon: field('RssAnon'), file: field('RssFile'), threads: Number(status.match(/^Threads:\s+(\d+)/m)?.[1]) };
};

/** The main thread's process.memoryUsage(), through the preloaded probe (SIGUSR2). */
const heapOf = async (child, file) => {
  const before = await readFile(file, 'utf8').catch(() => '');
  child.kill('SIGUSR2');
  for (let i = 0; i < 50; i++) {
    await sleep(100);
    const text = await readFile(file, 'utf8').catch(() => '');
    if (text.length > before.length) {
      const usage = JSON.parse(text.trim().split('\n').pop());
      return { heapTotal: usage.heapTotal / MB, heapUsed: usage.heapUsed / MB, external: usage.external / MB };
    }
  }
  return { heapTotal: Number.NaN, heapUsed: Number.NaN, external: Number.NaN };
};

const snapshot = async (child, file) => ({ ...(await rssOf(child.pid)), ...(await heapOf(child, file)) });

const scenario = {
  scenario: 'memory',
  limitSeconds: () => selectedEngines().length * RUNS * (IDLE_SECONDS + LOAD_SECONDS + 120),

  async run() {
    const rows = [];
    const skipped = [];
    const logs = [];
    const probe = join(ROOT, 'bench', 'memory-probe.mjs');
    for (const engine of selectedEngines()) {
      const prepared = await setUpEngine(engine, skipped);
      if (prepared === null) continue;
      const apiKey = await createApiKey(prepared.env);
      const runs = [];
      for (let run = 1; run <= RUNS; run++) {
        const file = join(await tempDir('memory-probe'), 'probe.jsonl');
        const nodeOptions = [process.env.BENCH_NODE_OPTIONS, `--import=${probe}`].filter(Boolean).join(' ');
        const gateway = await startGateway(`memory-${engine.name}`, { ...prepared.env, ...EXTRA_ENV, NODE_OPTIONS: nodeOptions, MEMORY_PROBE_FILE: file });
        try {
          console.log(`run ${run}/${RUNS} on ${engine.name}: idle ${IDLE_SECONDS} s, then POST /api/webhook for ${LOAD_SECONDS} s…`);
          await sleep(IDLE_SECONDS * 1000);
          const idle = await snapshot(gateway.child, file);
          const url = `${gateway.url}/api/webhook`;
          const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
          const body = '{"event":"bench"}';
          const sample = await sampleRequest(url, { method: 'POST', headers, body });
          if (sample.status !== 200) throw new Error(`POST /api/webhook: sample got ${sample.status} ${sample.text}`);
          let peak = idle.rss;
          const sampler = setInterval(
            () =>
              rssOf(gateway.child.pid).then(
                (m) => (peak = Math.max(peak, m.rss)),
                () => {},
              ),
            1000,
          );
          const result = await autocannon({ url, method: 'POST', headers, body, connections: SETTINGS.connections, duration: LOAD_SECONDS, timeout: 10 });
          clearInterval(sampler);
          const loaded = await snapshot(gateway.child, file);
          peak = Math.max(peak, loaded.rss);
          const statuses = statusCounts(result);
          const problems = [];
          if (result.errors || result.timeouts) problems.push(`${result.errors} errors, ${result.timeouts} timeouts`);
          if (Object.keys(statuses).some((code) => code !== '200')) problems.push(`statuses ${JSON.stringify(statuses)}`);
          runs.push({ idle, loaded, peak, reqPerSec: result.requests.average, problems });
          console.log(
            `  idle ${round(idle.rss)} MB (heap ${round(idle.heapTotal)}, used ${round(idle.heapUsed)}), after load ${round(loaded.rss)} MB (heap ${round(loaded.heapTotal)}, used ${round(loaded.heapUsed)}), peak ${round(peak)} MB, ${Math.round(result.requests.average)} req/s`,
          );
        } finally {
          logs.push(await stopGateway(gateway));
          await rm(file, { force: true });
        }
      }
      const med = (pick) => {
        const sorted = runs.map(pick).sort((a, b) => a - b);
        const mid = Math.floor(sorted.length / 2);
        return round(sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2);
      };
      const target = TARGETS[engine.name] ?? {};
      const problems = runs.flatMap((r) => r.problems);
      const idleRss = med((r) => r.idle.rss);
      const loadedRss = med((r) => r.loaded.rss);
      const verdicts = [
        target.idle !== undefined && `idle ${idleRss <= target.idle ? 'met' : 'not met'}`,
        target.loaded !== undefined && `after load ${loadedRss <= target.loaded ? 'met' : 'not met'}`,
      ].filter(Boolean);
      rows.push({
        case: 'RSS idle / after webhook load',
        engine: engine.name,
        idleRssMb: idleRss,
        idleHeapMb: med((r) => r.idle.heapTotal),
        idleNativeMb: med((r) => r.idle.rss - r.idle.heapTotal),
        loadedRssMb: loadedRss,
        loadedHeapMb: med((r) => r.loaded.heapTotal),
        peakRssMb: med((r) => r.peak),
        perRunIdle: runs.map((r) => round(r.idle.rss)),
        perRunLoaded: runs.map((r) => round(r.loaded.rss)),
        reqPerSec: med((r) => r.reqPerSec),
        threads: runs[0]?.idle.threads,
        target,
        problems,
        verdict: problems.length ? `INVALID: ${problems.join('; ')}` : verdicts.join(', '),
      });
    }
    return {
      scenario: 'memory',
      rows,
      skipped,
      logs,
      settings: { runs: RUNS, idleSeconds: IDLE_SECONDS, loadSeconds: LOAD_SECONDS, connections: SETTINGS.connections },
    };
  },

  report({ rows, skipped }) {
    const meta = runMeta();
    console.log(
      `\nMemory (issue 15.1): RSS of the gateway ${IDLE_SECONDS} s after start-up and right after ${LOAD_SECONDS} s of POST /api/webhook (no trigger) on ${SETTINGS.connections} connections; medians of ${RUNS} runs; heap = V8 heap of the main thread, native = RSS − heap (PGlite's WebAssembly memory, threads, code); Node ${meta.node}`,
    );
    console.table(
      rows.map((r) => ({
        engine: r.engine,
        'idle RSS MB': r.idleRssMb,
        'idle heap MB': r.idleHeapMb,
        'idle native MB': r.idleNativeMb,
        'loaded RSS MB': r.loadedRssMb,
        'peak RSS MB': r.peakRssMb,
        'per-run idle': r.perRunIdle.join(' '),
        'per-run loaded': r.perRunLoaded.join(' '),
        target: [r.target.idle && `idle <= ${r.target.idle}`, r.target.loaded && `loaded <= ${r.target.loaded}`].filter(Boolean).join(', '),
        result: r.verdict,
      })),
    );
    for (const s of skipped) console.log(`skipped ${s.engine}: ${s.reason}`);
  },
};

export default scenario;
if (import.meta.main) await runStandalone(scenario);
