// Throughput benchmark of the built gateway against a bare node:http server. See bench/README.md.
// Usage: npm run bench   (or, after a build: node bench/run.mjs)
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';

const ROOT = resolve(import.meta.dirname, '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP_SECONDS = 2;
const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RESULTS_FILE = join(ROOT, 'bench', 'results', 'latest.json');

// The measured cases, run in this order for each engine; add new ones here. `on` picks the server:
// 'baseline' (bench/baseline.mjs, the reference of the % column) or 'gateway'. Every response must
// have status `expect` (checked on a sample request first, then on autocannon's status counts).
// `goal` is the target in % of the baseline's req/s measured for the same engine.
const CASES = [
  { name: 'GET / (bare node:http)', on: 'baseline', method: 'GET', path: '/', expect: 200 },
  { name: 'GET /api/ping (Koa + @koa/router only)', on: 'reference', method: 'GET', path: '/api/ping', expect: 200 },
  { name: 'GET /api/ping', on: 'gateway', method: 'GET', path: '/api/ping', expect: 200, goal: 60 },
  { name: 'POST /api/create-job (auth)', on: 'gateway', method: 'POST', path: '/api/create-job', auth: true,
    headers: { 'content-type': 'application/json' }, body: '{}', expect: 400 /* Missing job field */, goal: 45 },
];

// Each engine prepares the environment of `node dist/main.js`; `skip` (a reason) when unavailable.
const ENGINES = [
  { name: 'embedded', setup: async (cleanups) => ({ env: { DATA_DIR: await tempDir(cleanups, 'embedded') } }) },
  {
    name: 'postgres',
    setup: async (cleanups) => {
      const admin = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 5000 });
      try {
        await admin.connect();
      } catch (error) {
        return { skip: `PostgreSQL unreachable at ${new URL(PG_ADMIN_URL).host} (${error.message})` };
      }
      const database = `agw_bench_${randomBytes(4).toString('hex')}`;
      try {
        await admin.query(`CREATE DATABASE ${database}`);
      } finally {
        await admin.end();
      }
      cleanups.push(async () => {
        const dropper = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 5000 });
        await dropper.connect();
        await dropper.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).finally(() => dropper.end());
      });
      const url = new URL(PG_ADMIN_URL);
      url.pathname = `/${database}`;
      return { env: { DATA_DIR: await tempDir(cleanups, 'pg'), DATABASE_URL: url.href } };
    },
  },
];

const children = new Set();
const cleanups = []; // run in reverse order at the end, whatever happens

const tempDir = async (list, label) => {
  const dir = await mkdtemp(join(tmpdir(), `agw-bench-${label}-`));
  list.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
};

const freePort = () =>
  new Promise((done, fail) => {
    const probe = createServer().once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });

/** Starts a node child process; its output is kept (last 8 kB) for error messages. */
const startChild = (args, env) => {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.output = '';
  const keep = (chunk) => (child.output = (child.output + chunk).slice(-8192));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
};

/** SIGTERM, then SIGKILL after 10 s. */
const stopChild = (child) =>
  new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => (clearTimeout(killer), done()));
    child.kill('SIGTERM');
  });

/** Polls `url` until it answers 200 (60 s at most). */
const waitReady = async (url, child) => {
  for (const started = Date.now(); Date.now() - started < 60_000; await sleep(200)) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${child.output}`);
    const status = await fetch(url, { signal: AbortSignal.timeout(2000) }).then((r) => r.status, () => 0);
    if (status === 200) return;
  }
  throw new Error(`server not ready after 60 s:\n${child.output}`);
};

const createApiKey = async (env) => {
  const run = promisify(execFile)(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'keys', 'create', '--name', 'bench', '--json'],
    { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 });
  const { stdout } = await run;
  const line = stdout.trim().split('\n').reverse().find((l) => l.includes('"key"'));
  if (!line) throw new Error(`keys create printed no key:\n${stdout}`);
  return JSON.parse(line).key;
};

/** Checks one request, warms up, then measures the case with autocannon. */
const measure = async (testCase, baseUrl, apiKey) => {
  const headers = { ...testCase.headers, ...(testCase.auth ? { 'x-api-key': apiKey } : {}) };
  const request = { url: baseUrl + testCase.path, method: testCase.method, headers, body: testCase.body };
  const sample = await fetch(request.url, { ...request, signal: AbortSignal.timeout(10_000) });
  const sampleText = await sample.text();
  if (sample.status !== testCase.expect) throw new Error(`${testCase.name}: sample got ${sample.status}, expected ${testCase.expect}: ${sampleText}`);
  const cannon = (duration) => autocannon({ ...request, connections: CONNECTIONS, duration, timeout: 10 });
  await cannon(WARMUP_SECONDS);
  const result = await cannon(SECONDS);
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
  const problems = [];
  if (result.errors || result.timeouts) problems.push(`${result.errors} errors, ${result.timeouts} timeouts`);
  if (Object.keys(statuses).some((code) => Number(code) !== testCase.expect)) problems.push(`statuses ${JSON.stringify(statuses)}`);
  return { reqPerSec: result.requests.average, p99Ms: result.latency.p99, total: result.requests.total, statuses, problems };
};

const runAll = async () => {
  const load = loadavg()[0];
  if (load > 0.5) console.log(`warning: load average is ${load.toFixed(2)} before start; other processes will skew the results`);
  const rows = [];
  const skipped = [];
  // The baseline server stays up and its case is measured again with each engine, so that every
  // ratio compares measurements taken minutes apart at most, under similar machine load.
  const baselinePort = await freePort();
  const baseline = startChild([join(ROOT, 'bench', 'baseline.mjs')], { PORT: String(baselinePort) });
  await waitReady(`http://127.0.0.1:${baselinePort}/`, baseline);
  const referencePort = await freePort();
  const reference = startChild([join(ROOT, 'bench', 'baseline.mjs')], { PORT: String(referencePort), MODE: 'koa-router' });
  await waitReady(`http://127.0.0.1:${referencePort}/api/ping`, reference);

  for (const engine of ENGINES) {
    const prepared = await engine.setup(cleanups);
    if (prepared.skip) {
      console.log(`skipping engine ${engine.name}: ${prepared.skip}`);
      skipped.push({ engine: engine.name, reason: prepared.skip });
      continue;
    }
    const port = await freePort();
    const env = { ...prepared.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port) };
    const apiKey = await createApiKey(env);
    const server = startChild([join(ROOT, 'dist', 'main.js')], env);
    try {
      await waitReady(`http://127.0.0.1:${port}/api/ping`, server);
      for (const c of CASES) {
        console.log(`running ${c.name} for ${engine.name} (${SECONDS} s)…`);
        const url = `http://127.0.0.1:${c.on === 'baseline' ? baselinePort : c.on === 'reference' ? referencePort : port}`;
        rows.push({ case: c.name, engine: engine.name, baseline: c.on === 'baseline', ...(await measure(c, url, apiKey)) });
      }
    } finally {
      await stopChild(server);
    }
  }
  return { rows, skipped };
};

const report = ({ rows, skipped }) => {
  for (const row of rows) {
    const goal = CASES.find((c) => c.name === row.case)?.goal;
    const base = rows.find((r) => r.baseline && r.engine === row.engine)?.reqPerSec;
    row.pctOfBaseline = base ? Math.round((row.reqPerSec / base) * 1000) / 10 : null;
    row.target = goal === undefined ? null : `>= ${goal} %`;
    row.verdict = row.problems.length ? `INVALID: ${row.problems.join('; ')}` : goal === undefined ? '' : row.pctOfBaseline >= goal ? 'PASS' : 'BELOW';
  }
  console.log(`\n${SECONDS} s per case, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up, Node ${process.version}, ${cpus().length} CPUs`);
  console.table(rows.map((r) => ({ case: r.case, engine: r.engine, 'req/s': Math.round(r.reqPerSec), 'p99 ms': r.p99Ms, '% baseline': r.pctOfBaseline, target: r.target ?? '', result: r.verdict })));
  if (rows.some((r) => r.problems.length)) process.exitCode = 1;
  const meta = { date: new Date().toISOString(), node: process.version, cpus: cpus().length, loadavg: loadavg(), seconds: SECONDS, connections: CONNECTIONS, warmupSeconds: WARMUP_SECONDS };
  return { ...meta, rows, skipped };
};

const cleanUp = async () => {
  await Promise.all([...children].map(stopChild));
  for (const cleanup of cleanups.reverse().splice(0)) await cleanup().catch((error) => console.error(`cleanup failed: ${error.message}`));
};
// Bound the whole run: per case duration + warm-up + slack, plus start-up time per engine.
const limitMs = (CASES.length * ENGINES.length * (SECONDS + WARMUP_SECONDS + 15) + ENGINES.length * 120) * 1000;
const abort = (why, code) => () => {
  console.error(`bench: ${why}, stopping`);
  cleanUp().finally(() => process.exit(code));
};
setTimeout(abort(`time limit of ${limitMs / 1000} s reached`, 2), limitMs).unref();
process.once('SIGINT', abort('interrupted', 130));
process.once('SIGTERM', abort('terminated', 143));

try {
  const results = report(await runAll());
  await mkdir(join(ROOT, 'bench', 'results'), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`results written to ${RESULTS_FILE}`);
} catch (error) {
  console.error(`bench failed: ${error.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
