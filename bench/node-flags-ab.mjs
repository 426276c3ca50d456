// Node flags A/B (how `--max-semi-space-size=16` was chosen for `npm start`): the gateway on a
// fresh embedded database takes the peer bench's matched webhook (one trigger whose command
// appends the body's id to a file; each POST stored before it is answered) for
// BENCH_AB_SECONDS (10) at 32 connections, with no drain: only the accepted req/s counts. Each
// round runs every variant once, in alternating order, each in a fresh process and data directory.
// Usage: node bench/node-flags-ab.mjs "" "--max-semi-space-size=16" (after a build); a variant's
// flags go after npm start's own, so a later value of the same flag wins. BENCH_AB_ROUNDS (5).
import { spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { ROOT, SERVICE_ENV, SERVICE_NODE_FLAGS, createApiKey, median, restartablePort, stopChild, tempDir, waitReady, wholeNumberSetting } from './lib.mjs';

const SECONDS = wholeNumberSetting('BENCH_AB_SECONDS', 10);
const ROUNDS = wholeNumberSetting('BENCH_AB_ROUNDS', 5);
const variants = process.argv.slice(2);
if (variants.length < 2) throw new Error('give two or more variants of Node flags, e.g. "" "--max-semi-space-size=16"');

const once = async (flags) => {
  const dir = await tempDir('node-flags-ab');
  const dataDir = join(dir, 'data');
  await mkdir(dataDir, { mode: 0o700 });
  const out = join(dir, 'runs.txt');
  await writeFile(
    join(dir, 'TRIGGERS.json'),
    JSON.stringify([{ name: 'run', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: `printf '%s\\n' {{body.id}} >> '${out}'` }] }]),
  );
  const port = await restartablePort();
  const env = {
    ...SERVICE_ENV,
    PATH: process.env.PATH ?? '',
    DATA_DIR: dataDir,
    TRIGGERS_FILE: join(dir, 'TRIGGERS.json'),
    TRIGGERS_DIR: dir,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
  };
  const key = await createApiKey(env);
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...flags.split(' ').filter(Boolean), join(ROOT, 'dist', 'main.js')], { env, stdio: 'ignore' });
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitReady(`${url}/readyz`, child);
    let n = 0;
    let accepted = 0;
    const started = performance.now();
    await autocannon({
      url,
      connections: 32,
      duration: SECONDS,
      requests: [
        {
          method: 'POST',
          path: '/api/webhook',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          setupRequest: (request) => ({ ...request, body: JSON.stringify({ id: `id-${++n}` }) }),
          onResponse: (status) => {
            if (status === 200) accepted++;
          },
        },
      ],
    });
    return accepted / ((performance.now() - started) / 1000);
  } finally {
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  }
};

const results = new Map(variants.map((v) => [v, []]));
for (let round = 1; round <= ROUNDS; round++) {
  const order = round % 2 === 1 ? variants : [...variants].reverse();
  for (const flags of order) {
    const rate = await once(flags);
    results.get(flags).push(Math.round(rate));
    console.log(`round ${round}/${ROUNDS} [${flags || 'npm start'}]: ${Math.round(rate)} accepted req/s`);
  }
}
for (const [flags, rates] of results) console.log(`[${flags || 'npm start'}] median ${Math.round(median(rates))} req/s: ${rates.join(' ')}`);
