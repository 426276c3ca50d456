// Scenario "per-process": CPU per request of fresh processes, one after the other, to see how far
// one process differs from the next. A Node process can answer a few µs per request faster or
// slower than the next for its whole life (V8's pretenuring, which `npm start` turns off; code
// that V8 never optimized: see bench/README.md, "Measurements behind the code"), and a bench
// that keeps one process for all its runs then reports that process's luck.
// For each engine, BENCH_PROCESSES (5) fresh gateways (and, with BENCH_REFERENCE=1, as many
// fresh reference apps, bench/baseline.mjs MODE=reference) each answer bench/framework.mjs's
// three requests, BENCH_SECONDS (10) each after the warm-up, at BENCH_CONNECTIONS (50). Prints
// per process the CPU µs per request of the whole process and of its threads (main, PGlite's,
// V8's helpers), and per case the spread.
// Usage: node bench/per-process.mjs (after a build); BENCH_ENGINES applies.
import { readdir, readFile } from 'node:fs/promises';
import { CASES } from './framework.mjs';
import {
  SETTINGS,
  createApiKey,
  measure,
  median,
  round,
  runMeta,
  runStandalone,
  selectedEngines,
  setUpEngine,
  startBaseline,
  startGateway,
  stopChild,
  stopGateway,
  wholeNumberSetting,
} from './lib.mjs';

const PROCESSES = wholeNumberSetting('BENCH_PROCESSES', 5);
const WITH_REFERENCE = process.env.BENCH_REFERENCE === '1';
const TICK_MS = 10; // /proc's clock ticks (USER_HZ 100 on Linux)

/** CPU ms used so far by each thread of a process, summed by thread name (Linux /proc). */
const threadCpuMs = async (pid) => {
  const byName = {};
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    try {
      const name = (await readFile(`/proc/${pid}/task/${tid}/comm`, 'utf8')).trim();
      const fields = (await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8')).split(') ')[1].split(' ');
      byName[name] = (byName[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return byName;
};

const spread = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: round(sorted[0]), median: round(median(sorted)), max: round(sorted.at(-1)) };
};

/** Each case on one server process: CPU µs per request, in all and by thread. */
const measureProcess = async (server, apiKey, label) => {
  const samples = [];
  for (const c of CASES) {
    let before = null;
    const result = await measure({
      name: `${c.name} (${label})`,
      url: server.url + c.path,
      method: c.method,
      headers: { ...c.headers, ...(c.auth ? { 'x-api-key': apiKey } : {}) },
      body: c.body,
      expect: c.expect,
      check: c.check,
      beforeLoad: async () => (before = await threadCpuMs(server.child.pid)),
    });
    const after = await threadCpuMs(server.child.pid);
    const perThread = Object.fromEntries(
      Object.entries(after)
        .map(([name, ms]) => [name, round(((ms - (before[name] ?? 0)) * 1000) / result.total)])
        .filter(([, us]) => us > 0),
    );
    const total = round(Object.values(perThread).reduce((sum, us) => sum + us, 0));
    samples.push({ case: c.name, cpuUsPerReq: total, perThread, reqPerSec: result.reqPerSec, problems: result.problems });
  }
  return samples;
};

const scenario = {
  scenario: 'per-process',
  limitSeconds: () => selectedEngines().length * PROCESSES * (WITH_REFERENCE ? 2 : 1) * (CASES.length * (SETTINGS.seconds + SETTINGS.warmupSeconds + 10) + 60),

  async run() {
    const rows = [];
    const skipped = [];
    const logs = [];
    for (const engine of selectedEngines()) {
      const prepared = await setUpEngine(engine, skipped);
      if (prepared === null) continue;
      const apiKey = await createApiKey(prepared.env);
      const servers = [{ name: 'gateway', start: (n) => startGateway(`per-process-${engine.name}-${n}`, prepared.env), stop: (s) => stopGateway(s) }];
      if (WITH_REFERENCE) servers.push({ name: 'reference', start: () => startBaseline('reference', { API_KEYS: apiKey }), stop: (s) => stopChild(s.child) });
      for (const kind of servers) {
        const processes = [];
        for (let n = 1; n <= PROCESSES; n++) {
          console.log(`${kind.name} process ${n}/${PROCESSES} (${engine.name})…`);
          const server = await kind.start(n);
          try {
            processes.push(await measureProcess(server, apiKey, `${kind.name} ${n}`));
          } finally {
            const log = await kind.stop(server);
            if (log) logs.push(log);
          }
        }
        for (const [i, c] of CASES.entries()) {
          const perProcess = processes.map((samples) => samples[i]);
          const main = perProcess.map((s) => s.perThread.MainThread ?? 0);
          rows.push({
            case: c.name,
            engine: engine.name,
            server: kind.name,
            perProcessCpuUsPerReq: perProcess.map((s) => s.cpuUsPerReq),
            cpu: spread(perProcess.map((s) => s.cpuUsPerReq)),
            mainThread: spread(main),
            perThread: perProcess.map((s) => s.perThread),
            reqPerSec: spread(perProcess.map((s) => s.reqPerSec)).median,
            problems: perProcess.flatMap((s) => s.problems),
          });
        }
      }
    }
    return {
      scenario: 'per-process',
      rows,
      skipped,
      logs,
      settings: { processes: PROCESSES, reference: WITH_REFERENCE, seconds: SETTINGS.seconds, connections: SETTINGS.connections },
    };
  },

  report({ rows, skipped }) {
    const meta = runMeta();
    console.log(
      `\nCPU per request of ${PROCESSES} fresh processes each, ${SETTINGS.seconds} s per case at ${SETTINGS.connections} connections; Node ${meta.node}, ${meta.cpus} CPUs, load ${meta.loadavg.map((l) => l.toFixed(2)).join(' ')}`,
    );
    console.table(
      rows.map((r) => ({
        case: r.case,
        engine: r.engine,
        server: r.server,
        'CPU µs/req per process': r.perProcessCpuUsPerReq.join(' '),
        'min / median / max': `${r.cpu.min} / ${r.cpu.median} / ${r.cpu.max}`,
        'main thread median': r.mainThread.median,
        'req/s median': Math.round(r.reqPerSec),
        problems: r.problems.join('; '),
      })),
    );
    for (const s of skipped) console.log(`skipped ${s.engine}: ${s.reason}`);
  },
};

export default scenario;
if (import.meta.main) await runStandalone(scenario);
