// Scenario "peer" (issue 15.5): the gateway side by side with adnanh/webhook (Debian package
// `webhook`, installed with apt-get when missing). Both receive an authenticated POST whose body
// carries a unique id and run one shell command appending that id to a file:
//   1. load: BENCH_PEER_SECONDS (10) at BENCH_PEER_CONNECTIONS (32) connections, then drain;
//   2. crash: the same load on a fresh server, killed with SIGKILL halfway through and restarted
//      at once on the same port (and the same data), the load going on; then drain.
// For each server and phase: accepted req/s (answers 200), commands run (lines written), lost
// (accepted, never run) and doubled (run more than once). Target: the gateway accepts at least the
// peer's req/s, with 0 lost and 0 doubled in both phases.
// Usage: node bench/peer.mjs (after a build); BENCH_ENGINES selects the gateway's engines.
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  LOGS_DIR,
  SERVICE_ENV,
  SERVICE_NODE_FLAGS,
  ROOT,
  SETTINGS,
  createApiKey,
  restartablePort,
  round,
  runMeta,
  runStandalone,
  selectedEngines,
  sequencedRequests,
  setUpEngine,
  sleep,
  startChild,
  statusCounts,
  stopChild,
  summarizeProblems,
  tallyDeliveries,
  tempDir,
  waitForCount,
  waitReady,
  wholeNumberSetting,
} from './lib.mjs';

const SECONDS = wholeNumberSetting('BENCH_PEER_SECONDS', 10);
const CONNECTIONS = wholeNumberSetting('BENCH_PEER_CONNECTIONS', 32);
const PEER_KEY = 'peer-bench-secret-0123456789';

/** The peer's binary: `webhook` on the PATH, installed with apt-get when missing (needs root). */
const peerBinary = () => {
  const find = () => {
    try {
      return execFileSync('sh', ['-c', 'command -v webhook'], { encoding: 'utf8' }).trim() || null;
    } catch {
      return null;
    }
  };
  let found = find();
  if (found === null) {
    console.log('webhook (adnanh/webhook) not found: apt-get install -y webhook…');
    try {
      execFileSync('apt-get', ['install', '-y', 'webhook'], { stdio: 'inherit' });
    } catch (error) {
      throw new Error(`cannot install webhook with apt-get (${error.message}); install the Debian package "webhook" and run again`);
    }
    found = find();
  }
  if (found === null) throw new Error('webhook is still not on the PATH after apt-get install');
  return found;
};

/** Lines of the output file: id -> times written. */
const readRuns = async (file) => {
  const counts = {};
  const text = await readFile(file, 'utf8').catch(() => '');
  for (const line of text.split('\n')) if (line !== '') counts[line] = (counts[line] ?? 0) + 1;
  return counts;
};

/**
 * A server under test: `start()` starts it (again) on its port, `kill()` sends SIGKILL and waits
 * for the exit, `stop()` stops it cleanly and returns its log summary.
 */
const peerServer = async (binary, dir, outFile) => {
  const hooks = join(dir, 'hooks.json');
  await writeFile(
    hooks,
    JSON.stringify([
      {
        id: 'run',
        'execute-command': '/bin/sh',
        'command-working-directory': dir,
        'pass-arguments-to-command': [
          { source: 'string', name: '-c' },
          { source: 'string', name: `printf '%s\\n' "$1" >> '${outFile}'` },
          { source: 'string', name: 'sh' },
          { source: 'payload', name: 'id' },
        ],
        'trigger-rule': { match: { type: 'value', value: PEER_KEY, parameter: { source: 'header', name: 'X-Api-Key' } } },
      },
    ]),
  );
  const port = await restartablePort();
  const url = `http://127.0.0.1:${port}`;
  let child;
  const spawnPeer = () => {
    const peer = spawn(binary, ['-hooks', hooks, '-ip', '127.0.0.1', '-port', String(port), '-nopanic'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    peer.output = '';
    peer.stderr.on('data', (chunk) => (peer.output = (peer.output + chunk).slice(-8192)));
    return peer;
  };
  const start = async () => {
    child = spawnPeer();
    for (const started = Date.now(); Date.now() - started < 20_000; await sleep(100)) {
      if (child.exitCode !== null) {
        // Right after a SIGKILL the port can still be held for a moment by the killed server's
        // closing connections (seen once: `bind: address already in use` on a port below the
        // ephemeral range); start again, the wait counted in the restart's time.
        if (/address already in use/.test(child.output) && Date.now() - started < 5_000) {
          await sleep(20);
          child = spawnPeer();
          continue;
        }
        throw new Error(`webhook exited with ${child.exitCode}: ${child.output}`);
      }
      const answered = await fetch(`${url}/`, { signal: AbortSignal.timeout(1000) }).then(
        () => true,
        () => false,
      );
      if (answered) return;
    }
    throw new Error(`webhook not answering after 20 s: ${child.output}`);
  };
  await start();
  return {
    name: 'webhook (adnanh)',
    path: '/hooks/run',
    url,
    headers: { 'content-type': 'application/json', 'x-api-key': PEER_KEY },
    start,
    kill: () => killAndWait(child),
    stop: async () => {
      await stopChild(child);
      return null;
    },
  };
};

const killAndWait = (child) =>
  new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGKILL');
  });

const gatewayServer = async (engine, env, dir, outFile) => {
  const triggers = join(dir, 'TRIGGERS.json');
  await writeFile(
    triggers,
    JSON.stringify([
      { name: 'run', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: `printf '%s\\n' {{body.id}} >> '${outFile}'` }] },
    ]),
  );
  const apiKey = await createApiKey(env);
  const port = await restartablePort();
  const label = `peer-${engine.name}`;
  const fullEnv = { ...SERVICE_ENV, LOG_LEVEL: 'warn', ...env, TRIGGERS_FILE: triggers, TRIGGERS_DIR: dir, HOST: '127.0.0.1', PORT: String(port) };
  const url = `http://127.0.0.1:${port}`;
  let child;
  let starts = 0;
  // The first start waits for /readyz (the task queue started: on the phase's new database
  // pg-boss creates its schema first), as the load should meet a started service; the restart
  // after the SIGKILL is timed to the first 200 on /api/ping, the moment callers are answered.
  const start = async () => {
    starts++;
    await mkdir(LOGS_DIR, { recursive: true });
    child = startChild([...SERVICE_NODE_FLAGS, join(ROOT, 'dist', 'main.js')], fullEnv, {
      logFile: join(LOGS_DIR, `${label}-${starts}.log`),
    });
    await waitReady(`${url}${starts === 1 ? '/readyz' : '/api/ping'}`, child);
  };
  await start();
  return {
    name: `gateway (${engine.name})`,
    path: '/api/webhook',
    url,
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    start,
    kill: () => killAndWait(child),
    stop: async () => {
      await stopChild(child);
      await sleep(50);
      return summarizeProblems({ label, logFile: `bench/results/logs/${label}-*.log`, child });
    },
  };
};

/**
 * One phase on a fresh server: the load, with a SIGKILL and a restart halfway when `crash`;
 * then the wait until every accepted id has run (or the count stops growing).
 */
const phase = async (makeServer, crash) => {
  const dir = await tempDir('peer');
  const outFile = join(dir, 'runs.txt');
  const server = await makeServer(dir, outFile);
  const sequence = sequencedRequests({ path: server.path, headers: server.headers, body: (n) => JSON.stringify({ id: `id-${n}` }), expect: 200 });
  let restartMs = null;
  try {
    console.log(
      `${server.name}: ${crash ? 'crash' : 'load'} phase, ${SECONDS} s at ${CONNECTIONS} connections${crash ? ', SIGKILL and restart halfway' : ''}…`,
    );
    const started = performance.now();
    const load = autocannon({ url: server.url, requests: sequence.requests, connections: CONNECTIONS, duration: SECONDS, timeout: 10 });
    if (crash) {
      await sleep((SECONDS * 1000) / 2);
      await server.kill();
      const down = performance.now();
      await server.start();
      restartMs = Math.round(performance.now() - down);
    }
    const result = await load;
    const seconds = (performance.now() - started) / 1000;
    const accepted = sequence.state.accepted;
    // Accepted answers per second of the phase: where a restart's cost lies (the gap, then the pace).
    const timeline = Array.from({ length: Math.ceil(seconds) }, () => 0);
    for (const at of sequence.state.acceptedAt.values()) timeline[Math.min(timeline.length - 1, Math.floor((at - started) / 1000))]++;
    const ranAccepted = async () => {
      const runs = await readRuns(outFile);
      let n = 0;
      for (const seq of accepted) if (runs[`id-${seq}`]) n++;
      return n;
    };
    const drain = await waitForCount(ranAccepted, accepted.size, { settleSeconds: 5, everyMs: 500 });
    const runs = await readRuns(outFile);
    const byNumber = Object.fromEntries(Object.entries(runs).map(([id, count]) => [Number(id.slice(3)), count]));
    const tally = tallyDeliveries(accepted, byNumber);
    return {
      server: server.name,
      phase: crash ? 'kill -9 + restart' : 'load',
      acceptedPerSec: round(accepted.size / seconds),
      accepted: accepted.size,
      sent: sequence.state.sent,
      statuses: statusCounts(result),
      errors: result.errors,
      timeouts: result.timeouts,
      commandsRun: tally.total,
      lost: tally.lost,
      doubled: tally.doubled,
      unconfirmed: tally.unconfirmed,
      drainSeconds: round(drain.lastChangeMs / 1000),
      drainOutcome: drain.outcome,
      restartMs,
      timeline,
      log: await server.stop(),
    };
  } catch (error) {
    await server.stop().catch(() => null);
    throw error;
  }
};

const scenario = {
  scenario: 'peer',
  limitSeconds: () => (selectedEngines().length + 1) * 2 * (SECONDS + SETTINGS.drainSeconds + 90),

  async run() {
    const rows = [];
    const skipped = [];
    const logs = [];
    const binary = peerBinary();
    const servers = [{ name: 'peer', make: (dir, out) => peerServer(binary, dir, out) }];
    for (const engine of selectedEngines()) {
      const prepared = await setUpEngine(engine, skipped);
      if (prepared === null) continue;
      servers.push({
        name: engine.name,
        // each phase on a fresh database: the crash phase's counts are its own
        make: async (dir, out) => {
          const fresh = engine.name === 'embedded' ? { ...prepared.env, DATA_DIR: await tempDir('peer-data') } : await (await engine.setup()).env;
          return gatewayServer(engine, fresh, dir, out);
        },
      });
    }
    for (const crash of [false, true]) {
      for (const server of servers) {
        const row = await phase(server.make, crash);
        if (row.log) logs.push({ ...row.log, run: `${row.log.run}-${crash ? 'crash' : 'load'}` });
        delete row.log;
        rows.push(row);
      }
    }
    for (const row of rows) {
      const peer = rows.find((r) => r.server.startsWith('webhook') && r.phase === row.phase);
      row.problems = [];
      if (!row.server.startsWith('gateway')) {
        row.verdict = '(peer)';
        continue;
      }
      const faults = [
        row.acceptedPerSec < peer.acceptedPerSec && `req/s below the peer's (${row.acceptedPerSec} < ${peer.acceptedPerSec})`,
        row.lost > 0 && `LOST ${row.lost}`,
        row.doubled > 0 && `DOUBLED ${row.doubled}`,
        row.drainOutcome !== 'settled' && `NOT DRAINED (${row.drainOutcome})`,
      ].filter(Boolean);
      row.verdict = faults.length ? `not met: ${faults.join(', ')}` : 'met';
    }
    return { scenario: 'peer', rows, skipped, logs, settings: { seconds: SECONDS, connections: CONNECTIONS, drainLimitSeconds: SETTINGS.drainSeconds } };
  },

  report({ rows, skipped }) {
    const meta = runMeta();
    console.log(
      `\nPeer (issue 15.5): the gateway and adnanh/webhook, each POST running one shell command that appends the body's id to a file; ${SECONDS} s at ${CONNECTIONS} connections, then drain; the crash phase kills the server with SIGKILL halfway and restarts it; Node ${meta.node}, ${meta.cpus} CPUs, load ${meta.loadavg.map((l) => l.toFixed(2)).join(' ')}`,
    );
    console.table(
      rows.map((r) => ({
        server: r.server,
        phase: r.phase,
        'accepted req/s': r.acceptedPerSec,
        accepted: r.accepted,
        'commands run': r.commandsRun,
        lost: r.lost,
        doubled: r.doubled,
        'in flight at stop/kill': r.unconfirmed,
        'other answers':
          JSON.stringify(Object.fromEntries(Object.entries(r.statuses).filter(([code]) => code !== '200'))) + (r.errors ? ` ${r.errors} errors` : ''),
        'drain s': r.drainOutcome === 'settled' ? r.drainSeconds : `${r.drainOutcome}`,
        'restart ms': r.restartMs ?? '',
        result: r.verdict,
      })),
    );
    for (const r of rows) console.log(`${r.server}, ${r.phase}: accepted per second ${r.timeline.join(' ')}`);
    for (const s of skipped) console.log(`skipped ${s.engine}: ${s.reason}`);
  },
};

export default scenario;
if (import.meta.main) await runStandalone(scenario);
