// Scenario "cli": how long the `agent-gateway` command takes, from spawn to exit.
// - `agent-gateway --help`: the CLI's own start-up (no configuration, no database);
// - `agent-gateway keys list` on an existing database (10 keys), per engine:
//   embedded with no server (the CLI opens PGlite itself), embedded with the server running
//   (through its admin socket: no database opened), and PostgreSQL (directly).
// Each is run BENCH_CLI_RUNS times (default 5); the median is compared with the target (≤ 1 s,
// issue #13 and #15). Each run also reports the process's CPU time (all threads), which says
// more than the wall time on a busy machine.
// Usage: node bench/cli.mjs   (needs a build; not run by run.mjs)
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, createApiKey, percentile, runStandalone, selectedEngines, setUpEngine, startGateway, stopGateway } from './lib.mjs';

const RUNS = (() => {
  const value = Number(process.env.BENCH_CLI_RUNS ?? 5);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`BENCH_CLI_RUNS: "${process.env.BENCH_CLI_RUNS}" is not a whole number of at least 1`);
  return value;
})();
const TARGET_MS = 1000;
const KEYS = 10;
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
/** Preloaded into the CLI: prints the process's CPU time (user + system, every thread) on stderr at exit. */
const CPU_PROBE = `data:text/javascript,${encodeURIComponent(
  "process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write('[bench-cpu] ' + Math.round((u.user + u.system) / 1000) + '\\n'); });",
)}`;

/** One run of the CLI: wall ms from spawn to exit, CPU ms, exit code, output. */
const runCli = (args, env) =>
  new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', CPU_PROBE, CLI, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', fail);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      const cpu = Number(/\[bench-cpu\] (\d+)/.exec(stderr)?.[1] ?? NaN);
      done({ ms, cpu, code, stdout, stderr: stderr.replace(/\[bench-cpu\] \d+\n/, '') });
    });
  });

/** RUNS runs of `args`; each must exit 0 and say `expectLine` first on stderr (when given). */
const sample = async (name, engine, args, env, { expectLine, target = TARGET_MS } = {}) => {
  const runs = [];
  const problems = [];
  for (let i = 0; i < RUNS; i++) {
    const run = await runCli(args, env);
    if (run.code !== 0) problems.push(`run ${i + 1}: exit ${run.code}: ${run.stderr.trim().split('\n').at(-1)}`);
    else if (expectLine !== undefined && !run.stderr.startsWith(expectLine)) problems.push(`run ${i + 1}: stderr began "${run.stderr.split('\n')[0]}"`);
    runs.push(run);
  }
  const ms = runs.map((r) => r.ms);
  const cpu = runs.map((r) => r.cpu);
  const median = percentile(ms, 50);
  return {
    case: name,
    engine,
    runs: ms.map(Math.round),
    medianMs: Math.round(median),
    minMs: Math.round(Math.min(...ms)),
    maxMs: Math.round(Math.max(...ms)),
    cpuRuns: cpu,
    medianCpuMs: Math.round(percentile(cpu, 50)),
    target: `≤ ${target} ms`,
    verdict: median <= target ? 'PASS' : 'FAIL',
    problems,
  };
};

const scenario = {
  scenario: 'cli',
  limitSeconds: () => selectedEngines().length * RUNS * 4 * 130 + 600,

  async run() {
    const rows = [];
    const skipped = [];
    const logs = [];
    rows.push(await sample('agent-gateway --help', 'none', ['--help'], {}));
    for (const engine of selectedEngines()) {
      const prepared = await setUpEngine(engine, skipped);
      if (prepared === null) continue;
      const env = prepared.env;
      // Not measured: the first command creates and migrates the database; then the keys to list.
      console.log(`${engine.name}: creating the database and ${KEYS} keys…`);
      for (let i = 0; i < KEYS; i++) await createApiKey(env);
      if (engine.name === 'embedded') {
        console.log(`${engine.name}: keys list, no server (${RUNS} runs)…`);
        rows.push(await sample('keys list, no server', engine.name, ['keys', 'list'], env, { expectLine: 'using the embedded database in' }));
        const gateway = await startGateway(`cli-${engine.name}`, env);
        try {
          console.log(`${engine.name}: keys list, server running (${RUNS} runs)…`);
          rows.push(await sample('keys list, server running', engine.name, ['keys', 'list'], env, { expectLine: 'using the embedded database in' }));
        } finally {
          logs.push(await stopGateway(gateway));
        }
      } else {
        console.log(`${engine.name}: keys list (${RUNS} runs)…`);
        rows.push(await sample('keys list', engine.name, ['keys', 'list'], env, { expectLine: 'using PostgreSQL at' }));
      }
    }
    return { scenario: 'cli', rows, skipped, logs, settings: { runs: RUNS, keys: KEYS } };
  },

  report({ rows }) {
    console.log(`\nCLI (${RUNS} runs each, from spawn to exit; CPU = the process's user + system time, all threads)`);
    console.table(
      rows.map((r) => ({
        case: r.case,
        engine: r.engine,
        'median ms': r.medianMs,
        'min ms': r.minMs,
        'max ms': r.maxMs,
        'median CPU ms': r.medianCpuMs,
        target: r.target,
        result: r.problems.length > 0 ? r.problems.join('; ') : r.verdict,
      })),
    );
  },
};

export default scenario;
if (import.meta.main) await runStandalone(scenario);
