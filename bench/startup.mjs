// Scenario "startup": how long the service takes to start and to refuse to start.
// - `npm start` (the README's command) with a current build and an existing data directory,
//   to the first 200 on GET /api/ping; the same for `node dist/main.js` alone;
// - a start on a port already in use, to the process's exit (a supervisor waits for it).
// Each is run BENCH_STARTUP_RUNS times (default 5); medians are compared with the targets.
// Usage: node bench/startup.mjs   (builds first if the build is not current; not run by run.mjs)
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT, freePort, percentile, round, runStandalone, selectedEngines, setUpEngine, sleep } from './lib.mjs';

const RUNS = (() => {
  const value = Number(process.env.BENCH_STARTUP_RUNS ?? 5);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`BENCH_STARTUP_RUNS: "${process.env.BENCH_STARTUP_RUNS}" is not a whole number of at least 1`);
  return value;
})();
/** Targets in ms (medians): issue #15 (start), issue #13 (refusal). */
const TARGETS = { 'npm start → first 200 on /api/ping': 2000, 'port in use → exit': 2000 };

/** Starts `command` in a process group of its own (npm → sh → node), so that all of it can be stopped. */
const launch = (command, args, env) => {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.output = '';
  const keep = (chunk) => (child.output = (child.output + chunk).slice(-8192));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
  return child;
};

const groupAlive = (pid) => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};

/**
 * Stops the whole group and waits until none of it is left: npm may exit on SIGTERM before the
 * gateway it started has finished its graceful stop, and the next start would find the embedded
 * database still held by it.
 */
const stopGroup = async (child) => {
  const signal = (name) => {
    try {
      process.kill(-child.pid, name);
    } catch {
      // already gone
    }
  };
  if (child.exitCode === null && child.signalCode === null) signal('SIGTERM');
  const deadline = performance.now() + 10_000;
  await child.exited;
  while (groupAlive(child.pid)) {
    if (performance.now() > deadline) signal('SIGKILL');
    await sleep(20);
  }
};

/** ms from spawn to the first 200 on /api/ping. */
const timeToPing = async (command, args, env) => {
  const port = await freePort();
  const started = performance.now();
  const child = launch(command, args, { ...env, HOST: '127.0.0.1', PORT: String(port) });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited with ${child.exitCode}:\n${child.output}`);
      // Longer than the gateway holds a request while it starts (10 s): answered when it is ready.
      const status = await fetch(`http://127.0.0.1:${port}/api/ping`, { signal: AbortSignal.timeout(15_000) }).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) return performance.now() - started;
      if (performance.now() - started > 120_000) throw new Error(`no 200 on /api/ping after 120 s:\n${child.output}`);
      await sleep(10);
    }
  } finally {
    await stopGroup(child);
  }
};

/** ms from spawn to the exit of a gateway whose port is taken; the exit code and its line. */
const timeToRefusal = async (env) => {
  const holder = createServer();
  await new Promise((done) => holder.listen(0, '127.0.0.1', done));
  const started = performance.now();
  const child = launch(process.execPath, [join(ROOT, 'dist', 'main.js')], { ...env, HOST: '127.0.0.1', PORT: String(holder.address().port) });
  const timeout = setTimeout(() => stopGroup(child), 60_000);
  const { code } = await child.exited;
  clearTimeout(timeout);
  const ms = performance.now() - started;
  await new Promise((done) => holder.close(done));
  return { ms, code, line: child.output.trim().split('\n').at(-1) };
};

const row = (name, engine, samples, extra = {}) => {
  const median = percentile(samples, 50);
  const target = engine === 'embedded' ? TARGETS[name] : undefined;
  return {
    case: name,
    engine,
    runs: samples.map((ms) => Math.round(ms)),
    medianMs: Math.round(median),
    minMs: Math.round(Math.min(...samples)),
    maxMs: Math.round(Math.max(...samples)),
    target: target === undefined ? null : `≤ ${target} ms`,
    verdict: target === undefined ? '' : median <= target ? 'PASS' : 'FAIL',
    problems: [],
    ...extra,
  };
};

const scenario = {
  scenario: 'startup',
  limitSeconds: () => selectedEngines().length * RUNS * 3 * 130 + 300,

  async run() {
    // The build must be current, or the first `npm start` would measure the compiler.
    const build = spawnSync(process.execPath, [join(ROOT, 'src', 'build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('the build failed');
    const rows = [];
    const skipped = [];
    for (const engine of selectedEngines()) {
      const prepared = await setUpEngine(engine, skipped);
      if (prepared === null) continue;
      // Not measured: the first start creates and migrates the database.
      console.log(`${engine.name}: first start (creates the database)…`);
      const first = await timeToPing(process.execPath, [join(ROOT, 'dist', 'main.js')], prepared.env);
      const samples = { npm: [], node: [], refusal: [] };
      const refusals = [];
      for (let i = 0; i < RUNS; i++) {
        console.log(`${engine.name}: run ${i + 1} of ${RUNS}…`);
        samples.npm.push(await timeToPing('npm', ['start', '--silent'], prepared.env));
        samples.node.push(await timeToPing(process.execPath, [join(ROOT, 'dist', 'main.js')], prepared.env));
        const refusal = await timeToRefusal(prepared.env);
        samples.refusal.push(refusal.ms);
        refusals.push(refusal);
      }
      rows.push(row('npm start → first 200 on /api/ping', engine.name, samples.npm));
      rows.push(row('node dist/main.js → first 200 on /api/ping', engine.name, samples.node, { firstStartMs: Math.round(first) }));
      const wrong = refusals.filter((r) => r.code !== 1 || !r.line.startsWith('PORT: '));
      rows.push(
        row('port in use → exit', engine.name, samples.refusal, {
          exit: refusals[0].code,
          line: refusals[0].line,
          problems: wrong.map((r) => `exit ${r.code}: ${r.line}`),
        }),
      );
    }
    return { scenario: 'startup', rows, skipped, logs: [], settings: { runs: RUNS } };
  },

  report({ rows }) {
    console.log(`\nStart-up (${RUNS} runs each; existing data directory, current build)`);
    console.table(
      rows.map((r) => ({
        case: r.case,
        engine: r.engine,
        'median ms': r.medianMs,
        'min ms': r.minMs,
        'max ms': r.maxMs,
        target: r.target ?? '',
        result: r.problems.length > 0 ? r.problems.join('; ') : r.verdict,
      })),
    );
    for (const r of rows.filter((x) => x.firstStartMs !== undefined))
      console.log(`${r.engine}: first start on a new database ${round(r.firstStartMs / 1000)} s`);
  },
};

export default scenario;
if (import.meta.main) await runStandalone(scenario);
