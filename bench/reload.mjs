// Scenario "reload" (issue 17.2): authenticated POST /api/webhook at full speed while the trigger
// file is rewritten in place every BENCH_RELOAD_EVERY_MS, alternating between two sets of
// triggers. Every answer must name one whole set — never a mix, never an error. See bench/README.md.
// Usage: node bench/reload.mjs (after a build).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createApiKey, onCleanup, round, runStandalone, selectedEngines, setUpEngine, startGateway, stopGateway, tempDir } from './lib.mjs';

const number = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name}: "${process.env[name]}" is not a positive whole number`);
  return value;
};
const SECONDS = number('BENCH_RELOAD_SECONDS', 10);
const EVERY_MS = number('BENCH_RELOAD_EVERY_MS', 250);
const CONNECTIONS = number('BENCH_RELOAD_CONNECTIONS', 32);

const trigger = (name) => ({ name, watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] });
const SETS = { A: ['a1', 'a2'], B: ['b1', 'b2', 'b3'] };
const fileOf = (set) => JSON.stringify(SETS[set].map(trigger), null, 2);

const skipped = [];

const runEngine = async (engine) => {
  const dir = await tempDir('reload');
  const triggersFile = join(dir, 'TRIGGERS.json');
  await writeFile(triggersFile, fileOf('A'));
  const setup = await setUpEngine(engine, skipped);
  if (setup === null) return null;
  const env = { ...setup.env, TRIGGERS_FILE: triggersFile, TRIGGERS_DIR: dir };
  const gateway = await startGateway(`reload-${engine.name}`, env);
  onCleanup(async () => void gateway.child.kill('SIGKILL'));
  const key = await createApiKey(env);
  const counts = { A: 0, B: 0, mixed: 0, errors: 0 };
  const mixes = [];
  let rewrites = 0;
  let stop = false;
  // Rewritten in place (truncate, then write), as an editor may: a reload can see a cut file,
  // which must be refused as a whole and leave the running set.
  const rewriter = (async () => {
    for (let i = 1; !stop; i++) {
      await writeFile(triggersFile, fileOf(i % 2 === 1 ? 'B' : 'A'));
      rewrites++;
      await new Promise((done) => setTimeout(done, EVERY_MS));
    }
  })();
  const worker = async () => {
    while (!stop) {
      try {
        const response = await fetch(`${gateway.url}/api/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: '{"event":"reload-bench"}',
        });
        const body = await response.json();
        const fired = JSON.stringify(body.triggers ?? null);
        if (response.status !== 200) counts.errors++;
        else if (fired === JSON.stringify(SETS.A)) counts.A++;
        else if (fired === JSON.stringify(SETS.B)) counts.B++;
        else {
          counts.mixed++;
          if (mixes.length < 5) mixes.push(fired);
        }
      } catch {
        counts.errors++;
      }
    }
  };
  const started = Date.now();
  const workers = Array.from({ length: CONNECTIONS }, worker);
  await new Promise((done) => setTimeout(done, SECONDS * 1000));
  stop = true;
  await Promise.all([...workers, rewriter]);
  const elapsed = (Date.now() - started) / 1000;
  const log = await stopGateway(gateway);
  const total = counts.A + counts.B + counts.mixed + counts.errors;
  const problems = [];
  if (counts.mixed > 0) problems.push(`${counts.mixed} answers from a mixed set, e.g. ${mixes.join(' ')}`);
  if (counts.errors > 0) problems.push(`${counts.errors} errors`);
  if (counts.A === 0 || counts.B === 0) problems.push('one of the two sets never answered: the reloads did not take effect');
  return {
    row: { engine: engine.name, requests: total, reqPerSec: round(total / elapsed), rewrites, ...counts, problems },
    log,
  };
};

await runStandalone({
  limitSeconds: () => 120 + SECONDS * 4,
  run: async () => {
    const rows = [];
    const logs = [];
    for (const engine of selectedEngines()) {
      const outcome = await runEngine(engine);
      if (outcome === null) continue;
      rows.push(outcome.row);
      logs.push(outcome.log);
    }
    return { scenario: 'reload', rows, logs, skipped };
  },
  report: (part) => {
    console.log(`\nreload under load: ${SECONDS} s at ${CONNECTIONS} connections, the trigger file rewritten every ${EVERY_MS} ms`);
    console.log('engine     requests   req/s  rewrites  set A  set B  mixed  errors  verdict');
    for (const row of part.rows) {
      console.log(
        `${row.engine.padEnd(10)} ${String(row.requests).padStart(8)} ${String(row.reqPerSec).padStart(7)} ${String(row.rewrites).padStart(9)} ${String(row.A).padStart(6)} ${String(row.B).padStart(6)} ${String(row.mixed).padStart(6)} ${String(row.errors).padStart(7)}  ${row.problems.length === 0 ? 'met (0 mixed, 0 errors)' : `not met: ${row.problems.join('; ')}`}`,
      );
    }
  },
});
