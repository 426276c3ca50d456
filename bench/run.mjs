// Throughput benchmark of the built gateway against a bare node:http server, then the trigger,
// messaging and unknown-key scenarios (bench/triggers.mjs, bench/messaging.mjs,
// bench/unknown-keys.mjs). See bench/README.md.
// Usage: npm run bench   (or, after a build: node bench/run.mjs)
//        BENCH_SCENARIOS=cases,triggers node bench/run.mjs   (a selection)
import {
  SETTINGS,
  cleanUp,
  createApiKey,
  guardRun,
  measure,
  printProblems,
  runMeta,
  selectedEngines,
  startBaseline,
  setUpEngine,
  startGateway,
  stopChild,
  stopGateway,
  warnIfBusy,
  writeResults,
} from './lib.mjs';
import messaging from './messaging.mjs';
import triggers from './triggers.mjs';
import unknownKeys from './unknown-keys.mjs';

// The measured cases, run in this order for each engine; add new ones here. `on` picks the server:
// 'baseline' (bench/baseline.mjs, the reference of the % column), 'reference' (Koa + router only)
// or 'gateway'. Every response must have status `expect` (checked on a sample request first, then
// on autocannon's status counts). `goal` is the target in % of the baseline's req/s measured for
// the same engine.
const CASES = [
  { name: 'GET / (bare node:http)', on: 'baseline', method: 'GET', path: '/', expect: 200 },
  { name: 'GET /api/ping (Koa + @koa/router only)', on: 'reference', method: 'GET', path: '/api/ping', expect: 200 },
  { name: 'GET /api/ping', on: 'gateway', method: 'GET', path: '/api/ping', expect: 200, goal: 60 },
  {
    name: 'POST /api/create-job (auth)',
    on: 'gateway',
    method: 'POST',
    path: '/api/create-job',
    auth: true,
    headers: { 'content-type': 'application/json' },
    body: '{}',
    expect: 400 /* Missing job field */,
    goal: 45,
  },
];

const cases = {
  scenario: 'cases',
  limitSeconds: () => CASES.length * selectedEngines().length * (SETTINGS.seconds + SETTINGS.warmupSeconds + 15) + selectedEngines().length * 120,

  async run() {
    const rows = [];
    const skipped = [];
    const logs = [];
    // The baseline server stays up and its case is measured again with each engine, so that every
    // ratio compares measurements taken minutes apart at most, under similar machine load.
    const baseline = await startBaseline('bare');
    const reference = await startBaseline('koa-router');
    try {
      for (const engine of selectedEngines()) {
        const prepared = await setUpEngine(engine, skipped);
        if (prepared === null) continue;
        const apiKey = await createApiKey(prepared.env);
        const gateway = await startGateway(`cases-${engine.name}`, prepared.env);
        try {
          for (const c of CASES) {
            console.log(`running ${c.name} for ${engine.name} (${SETTINGS.seconds} s)…`);
            const base = c.on === 'baseline' ? baseline.url : c.on === 'reference' ? reference.url : gateway.url;
            const headers = { ...c.headers, ...(c.auth ? { 'x-api-key': apiKey } : {}) };
            const result = await measure({ name: c.name, url: base + c.path, method: c.method, headers, body: c.body, expect: c.expect });
            rows.push({ case: c.name, engine: engine.name, baseline: c.on === 'baseline', ...result });
          }
        } finally {
          logs.push(await stopGateway(gateway));
        }
      }
    } finally {
      await Promise.all([stopChild(baseline.child), stopChild(reference.child)]);
    }
    for (const row of rows) {
      const goal = CASES.find((c) => c.name === row.case)?.goal;
      const base = rows.find((r) => r.baseline && r.engine === row.engine)?.reqPerSec;
      row.pctOfBaseline = base ? Math.round((row.reqPerSec / base) * 1000) / 10 : null;
      row.target = goal === undefined ? null : `>= ${goal} %`;
      row.verdict = row.problems.length ? `INVALID: ${row.problems.join('; ')}` : goal === undefined ? '' : row.pctOfBaseline >= goal ? 'PASS' : 'BELOW';
    }
    return {
      scenario: 'cases',
      rows,
      skipped,
      logs,
      settings: { seconds: SETTINGS.seconds, connections: SETTINGS.connections, warmupSeconds: SETTINGS.warmupSeconds },
    };
  },

  report({ rows }) {
    console.log(
      `\nCases: ${SETTINGS.seconds} s per case, ${SETTINGS.connections} connections, ${SETTINGS.warmupSeconds} s warm-up, Node ${process.version}, ${runMeta().cpus} CPUs`,
    );
    console.table(
      rows.map((r) => ({
        case: r.case,
        engine: r.engine,
        'req/s': Math.round(r.reqPerSec),
        'p99 ms': r.p99Ms,
        '% baseline': r.pctOfBaseline,
        target: r.target ?? '',
        result: r.verdict,
      })),
    );
  },
};

const ALL = [cases, triggers, messaging, unknownKeys];
const wanted = process.env.BENCH_SCENARIOS?.split(',').map((name) => name.trim());
const unknown = (wanted ?? []).filter((name) => !ALL.some((s) => s.scenario === name));
if (unknown.length > 0) {
  console.error(`BENCH_SCENARIOS: unknown ${unknown.join(', ')} (known: ${ALL.map((s) => s.scenario).join(', ')})`);
  process.exit(1);
}
const SCENARIOS = wanted ? ALL.filter((s) => wanted.includes(s.scenario)) : ALL;

guardRun(SCENARIOS.reduce((total, s) => total + s.limitSeconds(), 0));
warnIfBusy();
const parts = [];
const failed = [];
try {
  for (const scenario of SCENARIOS) {
    try {
      parts.push(await scenario.run());
    } catch (error) {
      console.error(
        `bench: scenario ${scenario.scenario} failed: ${error.stack ?? error}${error.cause ? `\ncaused by: ${error.cause.stack ?? error.cause}` : ''}`,
      );
      failed.push({ scenario: scenario.scenario, error: String(error.message ?? error) });
      process.exitCode = 1;
    }
  }
  // All the tables together at the end, so that they are not lost among progress lines.
  for (const part of parts) SCENARIOS.find((s) => s.scenario === part.scenario).report(part);
  for (const { scenario, error } of failed) console.log(`\nScenario ${scenario} FAILED: ${error}`);
  parts.push(...failed.map(({ scenario, error }) => ({ scenario, rows: [], skipped: [{ reason: `failed: ${error}` }], logs: [] })));
  console.log('');
  printProblems(parts.flatMap((part) => part.logs));
  if (parts.some((part) => part.rows.some((row) => row.problems.length > 0))) process.exitCode = 1;
  await writeResults(parts, { replace: SCENARIOS.length === ALL.length });
} catch (error) {
  console.error(`bench failed: ${error.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
