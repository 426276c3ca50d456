// Scenario "framework" (issue 15.4): the gateway's own cost over the framework it is built on.
// In one run, per engine, the reference app (bench/baseline.mjs MODE=reference: koa + @koa/router
// + koa-bodyparser + an API-key check by SHA-256 lookup in a Map, no code of ours) and the gateway
// answer the same three requests, measured alternately BENCH_FRAMEWORK_RUNS times (default 5), each
// run in a fresh pair of processes; each case's ratio is the gateway's median req/s over the
// reference's median req/s.
// Usage: node bench/framework.mjs (after a build); BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ENGINES apply.
import {
  SETTINGS,
  cpuMsOf,
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

const RUNS = wholeNumberSetting('BENCH_FRAMEWORK_RUNS', 5);

/** The three requests of issue 15.4 and their targets (% of the reference's req/s); bench/per-process.mjs sends them too. */
export const CASES = [
  { name: 'GET /api/ping', method: 'GET', path: '/api/ping', expect: 200, goal: 90 },
  {
    name: 'POST /api/create-job, invalid body (auth)',
    method: 'POST',
    path: '/api/create-job',
    auth: true,
    headers: { 'content-type': 'application/json' },
    body: '{}',
    expect: 400,
    check: (text) => (text.includes('Missing job field') ? undefined : 'expected "Missing job field"'),
    goal: 85,
  },
  {
    name: 'POST /api/webhook, no trigger (auth)',
    method: 'POST',
    path: '/api/webhook',
    auth: true,
    headers: { 'content-type': 'application/json' },
    body: '{"event":"bench"}',
    expect: 200,
    check: (text) => (text === '{"ok":true,"triggers":[]}' ? undefined : 'expected {"ok":true,"triggers":[]}'),
    goal: 85,
  },
];

const scenario = {
  scenario: 'framework',
  limitSeconds: () => selectedEngines().length * (RUNS * CASES.length * 2 * (SETTINGS.seconds + SETTINGS.warmupSeconds + 10) + 120),

  async run() {
    const rows = [];
    const skipped = [];
    const logs = [];
    for (const engine of selectedEngines()) {
      const prepared = await setUpEngine(engine, skipped);
      if (prepared === null) continue;
      const apiKey = await createApiKey(prepared.env);
      const samples = new Map(CASES.map((c) => [c.name, { reference: [], gateway: [], referenceCpu: [], gatewayCpu: [], problems: [] }]));
      for (let run = 1; run <= RUNS; run++) {
        // A fresh pair of processes for each run: how fast a Node process answers can differ
        // from one process to the next for its whole life (where V8 placed its code and objects;
        // the reference app measured 16.3 and 20.0 µs per ping in two processes of one run), and
        // the median over runs then covers that too.
        const reference = await startBaseline('reference', { API_KEYS: apiKey });
        const gateway = await startGateway(`framework-${engine.name}-run${run}`, prepared.env);
        try {
          for (const c of CASES) {
            const headers = { ...c.headers, ...(c.auth ? { 'x-api-key': apiKey } : {}) };
            // Alternate which goes first, so that a trend in the machine's load favours neither.
            const order = run % 2 === 1 ? ['reference', 'gateway'] : ['gateway', 'reference'];
            for (const on of order) {
              const url = (on === 'reference' ? reference.url : gateway.url) + c.path;
              console.log(
                `run ${run}/${RUNS}: ${c.name} on ${on === 'reference' ? 'the reference app' : `the gateway (${engine.name})`} (${SETTINGS.seconds} s)…`,
              );
              const pid = (on === 'reference' ? reference : gateway).child.pid;
              let cpuBefore = null;
              const beforeLoad = async () => (cpuBefore = await cpuMsOf(pid));
              const result = await measure({
                name: `${c.name} (${on})`,
                url,
                method: c.method,
                headers,
                body: c.body,
                expect: c.expect,
                check: c.check,
                beforeLoad,
              });
              const cpuAfter = await cpuMsOf(pid);
              const sample = samples.get(c.name);
              sample[on].push(result.reqPerSec);
              if (cpuBefore !== null && cpuAfter !== null && result.total > 0) sample[`${on}Cpu`].push(((cpuAfter - cpuBefore) * 1000) / result.total);
              sample.problems.push(...result.problems.map((p) => `${on}: ${p}`));
            }
          }
        } finally {
          logs.push(await stopGateway(gateway));
          await stopChild(reference.child);
        }
      }
      for (const c of CASES) {
        const s = samples.get(c.name);
        const ref = median(s.reference);
        const ours = median(s.gateway);
        const ratio = round((ours / ref) * 100);
        const refCpu = s.referenceCpu.length ? median(s.referenceCpu) : null;
        const ourCpu = s.gatewayCpu.length ? median(s.gatewayCpu) : null;
        rows.push({
          case: c.name,
          referenceCpuUsPerReq: round(refCpu),
          gatewayCpuUsPerReq: round(ourCpu),
          // CPU per request, reference over ours: the req/s ratio a server bound by its own CPU would reach; steadier than req/s on a busy machine.
          cpuRatioPct: refCpu && ourCpu ? round((refCpu / ourCpu) * 100) : null,
          engine: engine.name,
          referenceReqPerSec: s.reference.map(Math.round),
          gatewayReqPerSec: s.gateway.map(Math.round),
          referenceMedian: Math.round(ref),
          gatewayMedian: Math.round(ours),
          reqPerSec: ours,
          ratioPct: ratio,
          perRunRatioPct: s.gateway.map((g, i) => round((g / s.reference[i]) * 100)),
          goal: c.goal,
          problems: s.problems,
          verdict: s.problems.length ? `INVALID: ${s.problems.join('; ')}` : ratio >= c.goal ? 'met' : 'not met',
        });
      }
    }
    return {
      scenario: 'framework',
      rows,
      skipped,
      logs,
      settings: { runs: RUNS, seconds: SETTINGS.seconds, connections: SETTINGS.connections, warmupSeconds: SETTINGS.warmupSeconds },
    };
  },

  report({ rows, skipped }) {
    const meta = runMeta();
    console.log(
      `\nOwn cost over the framework (issue 15.4): gateway vs reference app (koa + @koa/router + koa-bodyparser + SHA-256 key lookup), ${RUNS} alternating runs of ${SETTINGS.seconds} s per case and server, ${SETTINGS.connections} connections; Node ${meta.node}, ${meta.cpus} CPUs, load ${meta.loadavg.map((l) => l.toFixed(2)).join(' ')}${meta.serverCpus === undefined ? '' : `; servers pinned to CPU ${meta.serverCpus}`}`,
    );
    console.table(
      rows.map((r) => ({
        case: r.case,
        engine: r.engine,
        'reference req/s (median)': r.referenceMedian,
        'gateway req/s (median)': r.gatewayMedian,
        'ratio %': r.ratioPct,
        'per-run ratios %': r.perRunRatioPct.join(' '),
        'CPU µs/req ref / ours': `${r.referenceCpuUsPerReq} / ${r.gatewayCpuUsPerReq}`,
        'CPU ratio %': r.cpuRatioPct,
        target: `>= ${r.goal} %`,
        result: r.verdict,
      })),
    );
    for (const s of skipped) console.log(`skipped ${s.engine}: ${s.reason}`);
  },
};

export default scenario;
if (import.meta.main) await runStandalone(scenario);
