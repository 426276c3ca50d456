// Helpers shared by the benchmark scripts (run.mjs, triggers.mjs, messaging.mjs). See bench/README.md.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';

export { sleep };
export const ROOT = resolve(import.meta.dirname, '..');
export const RESULTS_DIR = join(ROOT, 'bench', 'results');
export const RESULTS_FILE = join(RESULTS_DIR, 'latest.json');
export const LOGS_DIR = join(RESULTS_DIR, 'logs');

const number = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}: "${process.env[name]}" is not a positive number`);
  return value;
};

/** A whole-number setting of at least 1 from the environment variable `name` (`fallback` when unset); refuses anything else, naming it. */
export const wholeNumberSetting = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name}: "${process.env[name]}" is not a whole number of at least 1`);
  return value;
};

/** Settings shared by every script (environment variables, see the README). */
export const SETTINGS = {
  seconds: number('BENCH_SECONDS', 10),
  connections: number('BENCH_CONNECTIONS', 50),
  warmupSeconds: 2,
  drainSeconds: number('BENCH_DRAIN_SECONDS', 180),
  pgAdminUrl: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  /** Comma-separated engine names to run (default: all). */
  engines: process.env.BENCH_ENGINES ? process.env.BENCH_ENGINES.split(',').map((name) => name.trim()) : undefined,
};

// ---------------------------------------------------------------------------------------------
// process and resource bookkeeping: everything started or created is stopped or removed at the end

const children = new Set();
const cleanups = []; // run in reverse order by cleanUp()

export const onCleanup = (fn) => cleanups.push(fn);

export const tempDir = async (label) => {
  const dir = await mkdtemp(join(tmpdir(), `agw-bench-${label}-`));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return dir;
};

const listenOnce = (port) =>
  new Promise((done, fail) => {
    const probe = createServer().once('error', fail);
    probe.listen(port, '127.0.0.1', () => {
      const { port: bound } = probe.address();
      probe.close(() => done(bound));
    });
  });

export const freePort = () => listenOnce(0);

/**
 * A free port below the system's ephemeral range, for a server killed and restarted on the same
 * port while a load generator keeps connecting: each refused connect binds an ephemeral local
 * port, and one that happens to equal the server's port connects to itself (TCP's simultaneous
 * open on loopback), holding the port, and the restart fails with EADDRINUSE (seen with
 * adnanh/webhook's 18 ms restart under 32 connections).
 */
export const restartablePort = async () => {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    // not Linux: Linux's default start of the range
  }
  const floor = Math.max(1024, low - 12_000);
  for (let attempt = 0; attempt < 50 && low - floor >= 100; attempt++) {
    const port = floor + Math.floor(Math.random() * (low - floor));
    const bound = await listenOnce(port).catch(() => null);
    if (bound !== null) return bound;
  }
  // The ephemeral range starts too low to leave room below it, or nothing there was free.
  return freePort();
};

/**
 * BENCH_SERVER_CPUS (a taskset CPU list, e.g. `1`): where the measured servers run. With the
 * bench itself started under `taskset -c 0`, the load generator and the server under test no
 * longer take turns on the same cores (bench/README.md, "Pinned").
 */
const SERVER_CPUS = (() => {
  const cpus = process.env.BENCH_SERVER_CPUS;
  if (cpus === undefined || cpus === '') return undefined;
  if (!/^[0-9]+([-,][0-9]+)*$/.test(cpus)) throw new Error(`BENCH_SERVER_CPUS: "${cpus}" is not a CPU list such as 1 or 1-3`);
  return cpus;
})();

/**
 * Starts a node child process. Its output is kept (last 8 kB, `child.output`) for error
 * messages; with `logFile`, all of it is also written there and its pino lines of level warn
 * or above are tallied in `child.problems` (see summarizeProblems).
 */
export const startChild = (args, env, { logFile, server = false } = {}) => {
  // BENCH_NODE_OPTIONS reaches every child (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the gateway).
  const nodeOptions = process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {};
  // BENCH_SERVER_CPUS: the servers measured (gateway, reference, baselines) run on these CPUs only
  // (taskset, which execs node: the child's pid stays node's), every thread of theirs included.
  const [command, commandArgs] = server && SERVER_CPUS !== undefined ? ['taskset', ['-c', SERVER_CPUS, process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command, commandArgs, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...nodeOptions, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.output = '';
  child.problems = new Map(); // "level msg: error" -> { level, msg, error, count, first }
  const file = logFile ? createWriteStream(logFile) : undefined;
  let partial = '';
  const tally = (line) => {
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      entry = { level: 'text', msg: line }; // plain text: the CLI's own lines, a crash, a warning of Node itself
    }
    if (typeof entry !== 'object' || entry === null || !(entry.level >= 40 || entry.level === 'text')) return;
    const error = entry.err?.message ?? entry.error ?? entry.warning?.message ?? '';
    const key = `${entry.level} ${entry.msg} ${error}`;
    const seen = child.problems.get(key);
    if (seen) seen.count++;
    else
      child.problems.set(key, {
        level: entry.level === 'text' ? 'text' : entry.level >= 50 ? 'error' : 'warn',
        msg: String(entry.msg ?? ''),
        error: String(error).slice(0, 300),
        count: 1,
        first: line.slice(0, 2000),
      });
  };
  const keep = (chunk) => {
    child.output = (child.output + chunk).slice(-8192);
    if (!file) return;
    file.write(chunk);
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    for (const line of lines) if (line.trim() !== '') tally(line);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  children.add(child);
  child.once('exit', () => {
    children.delete(child);
    if (partial.trim() !== '') tally(partial);
    file?.end();
  });
  return child;
};

/** SIGTERM, then SIGKILL after 10 s. */
export const stopChild = (child) =>
  new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => (clearTimeout(killer), done()));
    child.kill('SIGTERM');
  });

/** Polls `url` until it answers 200 (60 s at most). */
export const waitReady = async (url, child) => {
  for (const started = Date.now(); Date.now() - started < 60_000; await sleep(200)) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${child.output}`);
    // Longer than the gateway holds a request while it starts (10 s): the ping sent once the port
    // is bound is answered the moment the service is ready, which times the start to the ms.
    const status = await fetch(url, { signal: AbortSignal.timeout(15_000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
  }
  throw new Error(`server not ready after 60 s:\n${child.output}`);
};

/** Stops every child and runs every clean-up (in reverse order); errors are printed, not thrown. */
export const cleanUp = async () => {
  await Promise.all([...children].map(stopChild));
  for (const cleanup of cleanups.reverse().splice(0)) await cleanup().catch((error) => console.error(`cleanup failed: ${error.message}`));
};

/** Bounds the whole run and cleans up on Ctrl-C / SIGTERM. */
export const guardRun = (limitSeconds) => {
  const abort = (why, code) => () => {
    console.error(`bench: ${why}, stopping`);
    cleanUp().finally(() => process.exit(code));
  };
  setTimeout(abort(`time limit of ${Math.round(limitSeconds)} s reached`, 2), limitSeconds * 1000).unref();
  process.once('SIGINT', abort('interrupted', 130));
  process.once('SIGTERM', abort('terminated', 143));
};

export const warnIfBusy = () => {
  const load = loadavg()[0];
  if (load > 0.5) console.log(`warning: load average is ${load.toFixed(2)} before start; other processes will skew the results`);
};

// ---------------------------------------------------------------------------------------------
// engines and servers

/** Each engine prepares the environment of `node dist/main.js`; `skip` (a reason) when unavailable. */
export const ENGINES = [
  { name: 'embedded', setup: async () => ({ env: { DATA_DIR: await tempDir('embedded') } }) },
  {
    name: 'postgres',
    setup: async () => {
      const admin = new pg.Client({ connectionString: SETTINGS.pgAdminUrl, connectionTimeoutMillis: 5000 });
      try {
        await admin.connect();
      } catch (error) {
        return { skip: `PostgreSQL unreachable at ${new URL(SETTINGS.pgAdminUrl).host} (${error.message})` };
      }
      const database = `agw_bench_${randomBytes(4).toString('hex')}`;
      try {
        await admin.query(`CREATE DATABASE ${database}`);
      } finally {
        await admin.end();
      }
      onCleanup(async () => {
        const dropper = new pg.Client({ connectionString: SETTINGS.pgAdminUrl, connectionTimeoutMillis: 5000 });
        await dropper.connect();
        await dropper.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).finally(() => dropper.end());
      });
      const url = new URL(SETTINGS.pgAdminUrl);
      url.pathname = `/${database}`;
      return { env: { DATA_DIR: await tempDir('pg'), DATABASE_URL: url.href } };
    },
  },
];

/** The engines selected by BENCH_ENGINES (all by default). */
export const selectedEngines = () => {
  if (!SETTINGS.engines) return ENGINES;
  const unknown = SETTINGS.engines.filter((name) => !ENGINES.some((engine) => engine.name === name));
  if (unknown.length > 0) throw new Error(`BENCH_ENGINES: unknown engine ${unknown.join(', ')} (known: ${ENGINES.map((e) => e.name).join(', ')})`);
  return ENGINES.filter((engine) => SETTINGS.engines.includes(engine.name));
};

/** Runs `engine.setup()`; when the engine cannot run here, says why, records it in `skipped` and returns null. */
export const setUpEngine = async (engine, skipped) => {
  const prepared = await engine.setup();
  if (!prepared.skip) return prepared;
  console.log(`skipping engine ${engine.name}: ${prepared.skip}`);
  skipped.push({ engine: engine.name, reason: prepared.skip });
  return null;
};

/**
 * Compares what a fake received (request number -> how many times) with the numbers the
 * gateway accepted: `total` received, `delivered` accepted ones received, `lost`, `doubled`,
 * and `unconfirmed` (received, but the load generator stopped before it saw the 200).
 */
export const tallyDeliveries = (accepted, counts = {}) => {
  let delivered = 0;
  let doubled = 0;
  let unconfirmed = 0;
  let total = 0;
  for (const [n, count] of Object.entries(counts)) {
    total += count;
    doubled += count - 1;
    if (accepted.has(Number(n))) delivered++;
    else unconfirmed++;
  }
  return { accepted: accepted.size, total, delivered, lost: accepted.size - delivered, doubled, unconfirmed };
};

/** Starts bench/baseline.mjs (`mode` 'bare', 'koa-router' or 'reference', plus `env`) on a free port; resolves once it answers. */
export const startBaseline = async (mode = 'bare', env = {}) => {
  const port = await freePort();
  const child = startChild([join(ROOT, 'bench', 'baseline.mjs')], { ...env, PORT: String(port), MODE: mode }, { server: true });
  await waitReady(`http://127.0.0.1:${port}${mode === 'bare' ? '/' : '/api/ping'}`, child);
  return { url: `http://127.0.0.1:${port}`, child };
};

/**
 * How `npm start` runs the service (package.json): the environment variables it sets before
 * `exec node` (`NAME=${NAME:-default}` takes the default unless this process has NAME) and the
 * Node.js flags before src/start.mjs (which imports dist/main.js in the same process), so that
 * the gateway is measured as it is started.
 */
const SERVICE_START = (() => {
  const start = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start;
  // `exec node`: the shell npm runs the script with is replaced by node, which then receives the
  // signals sent to npm (npm forwards them to its child).
  const command = start.match(/((?:[A-Za-z_][A-Za-z0-9_]*=\S+ )*)(?:exec )?node((?: --[^ ]+)*) (?:src\/start\.mjs|dist\/main\.js)/);
  if (command === null) throw new Error(`package.json's start script does not run "[NAME=value …] [exec] node … src/start.mjs": ${start}`);
  const env = {};
  for (const assignment of command[1].trim().split(' ').filter(Boolean)) {
    const [, name, value] = assignment.match(/^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/);
    const fallback = value.match(/^\$\{([A-Za-z_][A-Za-z0-9_]*):-(.*)\}$/);
    env[name] = fallback === null ? value : (process.env[fallback[1]] ?? fallback[2]);
  }
  return { env, flags: command[2].trim().split(' ').filter(Boolean) };
})();
export const SERVICE_NODE_FLAGS = SERVICE_START.flags;
/** The environment `npm start` gives the service (e.g. MALLOC_TRIM_THRESHOLD_); a part's own settings go over it. */
export const SERVICE_ENV = SERVICE_START.env;

/**
 * BENCH_GATEWAY_ENV ("NAME=value NAME=value", e.g. "LOG_LEVEL=info QUEUE_YIELD_BUSY_PERCENT=50")
 * goes over every gateway's environment, to try a setting without editing a scenario.
 */
const GATEWAY_ENV = Object.fromEntries(
  (process.env.BENCH_GATEWAY_ENV ?? '')
    .split(' ')
    .filter(Boolean)
    .map((assignment) => {
      const match = assignment.match(/^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/);
      if (match === null) throw new Error(`BENCH_GATEWAY_ENV: "${assignment}" is not NAME=value`);
      return [match[1], match[2]];
    }),
);

/**
 * Starts `node dist/main.js` with LOG_LEVEL=warn on a free port of 127.0.0.1 (plus `env`),
 * its whole output in bench/results/logs/<label>.log (replaced by the next run of the same
 * label), and waits for GET /readyz to answer 200, as an orchestrator would before sending it
 * traffic: the service answers requests before its task queue has started (on a new database,
 * pg-boss then creates its schema, and requests that store tasks wait for it), and a bench
 * measures a service that has.
 */
export const startGateway = async (label, env) => {
  const port = await freePort();
  await mkdir(LOGS_DIR, { recursive: true });
  const logFile = join(LOGS_DIR, `${label}.log`);
  const child = startChild(
    // BENCH_GATEWAY_NODE_FLAGS (e.g. "--trace-gc") reach the gateway only, not the fakes and load generators.
    [...SERVICE_NODE_FLAGS, ...(process.env.BENCH_GATEWAY_NODE_FLAGS ?? '').split(' ').filter(Boolean), join(ROOT, 'dist', 'main.js')],
    { ...SERVICE_ENV, LOG_LEVEL: 'warn', ...env, ...GATEWAY_ENV, HOST: '127.0.0.1', PORT: String(port) },
    { logFile, server: true },
  );
  await waitReady(`http://127.0.0.1:${port}/readyz`, child);
  return { url: `http://127.0.0.1:${port}`, child, label, logFile };
};

/** Stops a gateway and returns what it logged at warn and above, grouped (see startChild). */
export const stopGateway = async (gateway) => {
  await stopChild(gateway.child);
  await sleep(50); // let the last output reach the tally
  return summarizeProblems(gateway);
};

export const summarizeProblems = (gateway) => ({
  run: gateway.label,
  logFile: gateway.logFile,
  exitCode: gateway.child.exitCode,
  signal: gateway.child.signalCode,
  problems: [...gateway.child.problems.values()].sort((a, b) => b.count - a.count),
});

/** Prints the warn/error lines of each gateway run, grouped by message. */
export const printProblems = (logs) => {
  const noisy = logs.filter((log) => log.problems.length > 0 || (log.exitCode !== 0 && log.exitCode !== null));
  if (noisy.length === 0) {
    console.log('gateway logs: no warnings or errors');
    return;
  }
  for (const log of noisy) {
    const count = (level) => log.problems.filter((p) => p.level === level).reduce((n, p) => n + p.count, 0);
    console.log(
      `gateway log of ${log.run} (exit ${log.exitCode ?? log.signal}): ${count('error')} error, ${count('warn')} warn, ${count('text')} plain-text lines; full log in ${log.logFile}`,
    );
    for (const problem of log.problems.slice(0, 10)) {
      console.log(`  ${String(problem.count).padStart(6)} × ${problem.level} ${JSON.stringify(problem.msg)}${problem.error ? `: ${problem.error}` : ''}`);
    }
    if (log.problems.length > 10) console.log(`  … and ${log.problems.length - 10} other kinds`);
  }
};

export const createApiKey = async (env) => {
  const run = promisify(execFile)(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'keys', 'create', '--name', 'bench', '--json'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    timeout: 60_000,
  });
  const { stdout } = await run;
  const line = stdout
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.includes('"key"'));
  if (!line) throw new Error(`keys create printed no key:\n${stdout}`);
  return JSON.parse(line).key;
};

// ---------------------------------------------------------------------------------------------
// measuring

/** CPU time (user + system, every thread) a process has used so far, in ms (Linux /proc; null elsewhere). */
export const cpuMsOf = async (pid) => {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in clock ticks of 10 ms
  } catch {
    return null;
  }
};

/** Status code -> count, from an autocannon result. */
export const statusCounts = (result) => Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));

/**
 * Checks one request (status `expect`, and `check(body)` when given), warms up, then measures
 * with autocannon (`options` are added to autocannon's; `requests` there replaces the fixed
 * request). `warmup` and `load` say how long each lasts: `{ duration }` (s) or `{ amount }` (requests).
 */
export const measure = async ({
  name,
  url,
  method = 'GET',
  headers = {},
  body,
  expect,
  check,
  options = {},
  warmup = { duration: SETTINGS.warmupSeconds },
  load = { duration: SETTINGS.seconds },
  beforeLoad,
}) => {
  const request = { url, method, headers, body };
  const { status: sampleStatus, text: sampleText } = await sampleRequest(url, { method, headers, body });
  if (sampleStatus !== expect) throw new Error(`${name}: sample got ${sampleStatus}, expected ${expect}: ${sampleText}`);
  const problem = check?.(sampleText);
  if (problem) throw new Error(`${name}: sample answer ${sampleText}: ${problem}`);
  const cannon = (length) => autocannon({ ...request, connections: SETTINGS.connections, timeout: 10, ...options, ...length });
  await cannon(warmup);
  await beforeLoad?.();
  const result = await cannon(load);
  return summarize(result, expect);
};

/**
 * One request with fetch, tried up to 3 times on a network error (the message and its cause
 * are printed): fetch's pool may hand out an idle connection the moment it goes away.
 */
export const sampleRequest = async (url, init) => {
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
      return { status: response.status, text: await response.text() };
    } catch (error) {
      if (attempt >= 3) throw error;
      console.log(`sample request to ${url} failed (${error.message}${error.cause ? `: ${error.cause.code ?? ''} ${error.cause.message}` : ''}), retrying`);
      await sleep(500);
    }
  }
};

/** The row fields of an autocannon result; `problems` lists what makes the measurement invalid. */
export const summarize = (result, expect) => {
  const statuses = statusCounts(result);
  const problems = [];
  if (result.errors || result.timeouts) problems.push(`${result.errors} errors, ${result.timeouts} timeouts`);
  if (Object.keys(statuses).some((code) => Number(code) !== expect)) problems.push(`statuses ${JSON.stringify(statuses)}`);
  return { reqPerSec: result.requests.average, p99Ms: result.latency.p99, total: result.requests.total, statuses, problems };
};

/**
 * Waits (at most `timeoutSeconds`) until `count()` reaches `target` and then stays put for
 * `settleSeconds` more (so that late duplicates are seen), or stops growing for `stallSeconds`.
 * Returns the first and last counts, when it last changed (ms after the start) and whether it
 * settled, stalled or timed out.
 */
export const waitForCount = async (count, target, { timeoutSeconds = SETTINGS.drainSeconds, settleSeconds = 5, stallSeconds = 20, everyMs = 250 } = {}) => {
  const started = Date.now();
  const initial = await count();
  let last = initial;
  let lastChange = 0;
  while (Date.now() - started < timeoutSeconds * 1000) {
    await sleep(everyMs);
    const now = await count();
    const elapsed = Date.now() - started;
    if (now !== last) {
      last = now;
      lastChange = elapsed;
    }
    if (last >= target && elapsed - lastChange >= settleSeconds * 1000) return { initial, count: last, lastChangeMs: lastChange, outcome: 'settled' };
    if (last < target && elapsed - lastChange >= stallSeconds * 1000) return { initial, count: last, lastChangeMs: lastChange, outcome: 'stalled' };
  }
  return { initial, count: last, lastChangeMs: lastChange, outcome: 'timed out' };
};

/** Items per second while draining (after the load): what the background work keeps up with. */
export const drainRate = (drain) => (drain.lastChangeMs > 0 ? round(((drain.count - drain.initial) * 1000) / drain.lastChangeMs) : null);

/** Latency percentile (ms) of raw samples. */
export const percentile = (values, p) => {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
export const round = (value, digits = 1) => (value === null || value === undefined ? null : Math.round(value * 10 ** digits) / 10 ** digits);

// ---------------------------------------------------------------------------------------------
// results

export const runMeta = () => ({
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  loadavg: loadavg(),
  seconds: SETTINGS.seconds,
  connections: SETTINGS.connections,
  warmupSeconds: SETTINGS.warmupSeconds,
  ...(SERVER_CPUS !== undefined && { serverCpus: SERVER_CPUS }),
});

/**
 * Writes bench/results/latest.json. `parts` are { scenario, rows, skipped, logs, settings }:
 * with `replace`, the file is rewritten with these parts only; otherwise the parts replace
 * the rows of the same scenarios and the rest of the file is kept (one scenario run alone).
 */
export const writeResults = async (parts, { replace = false } = {}) => {
  let previous = { rows: [], skipped: [], gatewayLogs: [], scenarios: {} };
  if (!replace) {
    try {
      previous = { ...previous, ...JSON.parse(await readFile(RESULTS_FILE, 'utf8')) };
    } catch {
      // no previous file
    }
  }
  const names = new Set(parts.map((part) => part.scenario));
  const keep = (list = []) => list.filter((item) => !names.has(item.scenario ?? 'cases'));
  const results = {
    ...previous,
    ...runMeta(),
    rows: [...keep(previous.rows), ...parts.flatMap((part) => part.rows.map((row) => ({ scenario: part.scenario, ...row })))],
    skipped: [...keep(previous.skipped), ...parts.flatMap((part) => (part.skipped ?? []).map((skip) => ({ scenario: part.scenario, ...skip })))],
    gatewayLogs: [...keep(previous.gatewayLogs), ...parts.flatMap((part) => (part.logs ?? []).map((log) => ({ scenario: part.scenario, ...log })))],
    scenarios: { ...previous.scenarios, ...Object.fromEntries(parts.map((part) => [part.scenario, part.settings ?? {}])) },
  };
  await mkdir(RESULTS_DIR, { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`results written to ${RESULTS_FILE}`);
};

/** Runs one scenario as a script of its own: guard, run, print, merge into latest.json, clean up. */
export const runStandalone = async (scenario) => {
  guardRun(scenario.limitSeconds());
  warnIfBusy();
  try {
    const part = await scenario.run();
    scenario.report(part);
    printProblems(part.logs);
    await writeResults([part]);
    if (part.rows.some((row) => row.problems.length > 0)) process.exitCode = 1;
  } catch (error) {
    console.error(`bench failed: ${error.stack ?? error}`);
    process.exitCode = 1;
  } finally {
    await cleanUp();
  }
};

/**
 * Starts bench/fakes.mjs (webhook receiver, Telegram Bot API, OpenAI-compatible model) on a
 * free port; `stats()` fetches what it counted.
 */
export const startFakes = async (env = {}) => {
  const port = await freePort();
  const child = startChild([join(ROOT, 'bench', 'fakes.mjs')], { ...env, PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(`${url}/__stats`, child);
  const stats = async () => {
    const response = await fetch(`${url}/__stats`, { signal: AbortSignal.timeout(10_000) });
    return response.json();
  };
  return { url, child, stats };
};

/**
 * autocannon `requests` whose bodies carry a sequence number (1, 2, …, shared by every
 * connection and every autocannon run given the same object): `body(n)` makes the body.
 * `state.accepted` collects the numbers answered with status `expect`, `state.sent` counts
 * the numbers handed out (a request in flight when autocannon stops is sent, never answered);
 * `take()` and `accept(n)` do the same for a request sent by other means.
 */
export const sequencedRequests = ({ method = 'POST', path, headers, body, expect }) => {
  // sentAt / acceptedAt: performance.now() when a number's request was built (just before it is
  // written) and when its accepted answer arrived.
  const state = { next: 1, sent: 0, accepted: new Set(), sentAt: new Map(), acceptedAt: new Map() };
  const take = () => {
    state.sent++;
    state.sentAt.set(state.next, performance.now());
    return state.next++;
  };
  const accept = (n) => {
    state.accepted.add(n);
    state.acceptedAt.set(n, performance.now());
  };
  const requests = [
    {
      method,
      path,
      headers,
      setupRequest: (request, context) => {
        context.n = take();
        return { ...request, body: body(context.n) };
      },
      // With pipelining 1 a connection has one request in flight: the context is that request's.
      onResponse: (status, _body, context) => {
        if (status === expect) accept(context.n);
      },
    },
  ];
  return { state, requests, take, accept, body };
};

/**
 * What the gateway's task queue (pg-boss, schema `pgboss`) recorded, read from the database
 * once the gateway has stopped (the embedded database admits one process at a time): per
 * queue, tasks by state, tasks run more than once (`retry_count` > 0) and a few examples with
 * their last error, and pairs of tasks of one group (chat) started in another order than they
 * were queued (`created_on` vs `started_on`).
 */
export const queueReport = async (env) => {
  const sql = {
    states: `SELECT name, state, count(*)::int AS n, sum(CASE WHEN retry_count > 0 THEN 1 ELSE 0 END)::int AS retried FROM pgboss.job GROUP BY name, state ORDER BY name, state`,
    retried: `SELECT name, state, retry_count, output::text AS output, data::text AS data FROM pgboss.job WHERE retry_count > 0 OR state NOT IN ('completed') ORDER BY created_on LIMIT 10`,
    // Tasks of one group (one chat) started in another order than they were created (queued).
    reordered: `SELECT a.name, a.group_id AS "group", to_char(a.created_on, 'HH24:MI:SS.MS') AS "earlierCreated", to_char(a.started_on, 'HH24:MI:SS.MS') AS "earlierStarted",
        to_char(b.created_on, 'HH24:MI:SS.MS') AS "laterCreated", to_char(b.started_on, 'HH24:MI:SS.MS') AS "laterStarted", count(*) OVER ()::int AS total
      FROM pgboss.job a JOIN pgboss.job b ON b.name = a.name AND b.group_id = a.group_id AND b.created_on > a.created_on AND b.started_on < a.started_on
      WHERE a.group_id IS NOT NULL ORDER BY a.created_on LIMIT 5`,
  };
  let rows;
  if (env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: env.DATABASE_URL, connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      rows = {
        states: (await client.query(sql.states)).rows,
        retried: (await client.query(sql.retried)).rows,
        reordered: (await client.query(sql.reordered)).rows,
      };
    } finally {
      await client.end();
    }
  } else {
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create({ dataDir: join(env.DATA_DIR, 'pglite') });
    try {
      rows = { states: (await db.query(sql.states)).rows, retried: (await db.query(sql.retried)).rows, reordered: (await db.query(sql.reordered)).rows };
    } finally {
      await db.close();
    }
  }
  const queues = {};
  for (const { name, state, n, retried } of rows.states) {
    const queue = (queues[name] ??= { states: {}, retried: 0 });
    queue.states[state] = n;
    queue.retried += retried;
  }
  const examples = rows.retried.map((row) => ({
    queue: row.name,
    state: row.state,
    retries: row.retry_count,
    output: row.output?.slice(0, 300),
    data: row.data?.slice(0, 200),
  }));
  const reordered = { pairs: rows.reordered[0]?.total ?? 0, examples: rows.reordered.map(({ total, ...pair }) => pair) };
  return { queues, examples, reordered };
};

/** One line per queue: "chat-message: 3052 completed; 0 run more than once". */
export const formatQueueReport = (report) =>
  Object.entries(report.queues)
    .map(
      ([name, q]) =>
        `${name}: ${Object.entries(q.states)
          .map(([state, n]) => `${n} ${state}`)
          .join(', ')}; ${q.retried} run more than once`,
    )
    .join(' | ') + (report.reordered.pairs > 0 ? ` | ${report.reordered.pairs} pairs of tasks of one chat started in another order than queued` : '');
