// Scenario "unknown-keys": a flood of well-formed but unknown API keys (each one different) at
// full speed, with a valid caller at a fixed 50 req/s beside it: the valid caller's latency, and
// how often the flood reaches the database. See bench/README.md.
// Usage: node bench/unknown-keys.mjs (after a build); also run by bench/run.mjs.
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import pg from 'pg';
import {
  SETTINGS,
  createApiKey,
  percentile,
  round,
  runStandalone,
  sampleRequest,
  selectedEngines,
  setUpEngine,
  sleep,
  startGateway,
  statusCounts,
  stopGateway,
} from './lib.mjs';

const number = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name}: "${process.env[name]}" is not a positive whole number`);
  return value;
};

const FLOOD_SECONDS = number('BENCH_UNKNOWN_SECONDS', 30);
const IDLE_SECONDS = number('BENCH_UNKNOWN_IDLE_SECONDS', 10);
const VALID_RATE = 50;
/** The valid caller's rate is split over this many autocannon instances started 1/PHASES s apart (autocannon paces per second, in a burst). */
const PHASES = 5;
const GOAL_P99_MS = 50;
/** PostgreSQL's backends report their statistics at most once a second: wait this long before reading them. */
const STATS_SETTLE_MS = 2000;

/** A well-formed key nobody has: `agw_` and 32 random bytes in base64url, different every time. */
const unknownKey = () => `agw_${randomBytes(32).toString('base64url')}`;

/** The valid caller: an authenticated POST /api/create-job with `{}`, stopped by validation (400) after authentication. */
const validRequest = (key) => ({ method: 'POST', path: '/api/create-job', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: '{}' });
/** The flood: GET /api/jobs/status with a fresh unknown key each time (401). */
const floodRequests = [
  { method: 'GET', path: '/api/jobs/status', setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'x-api-key': unknownKey() } }) },
];

/** VALID_RATE req/s for `seconds`, raw answer times of every response (no coordinated-omission correction). */
const validCaller = async (url, key, seconds) => {
  const latencies = [];
  const instances = await Promise.all(
    Array.from({ length: PHASES }, (_, i) =>
      sleep((i * 1000) / PHASES).then(() => {
        const instance = autocannon({
          url,
          requests: [validRequest(key)],
          duration: seconds,
          timeout: 10,
          connections: 1,
          overallRate: VALID_RATE / PHASES,
          ignoreCoordinatedOmission: true,
        });
        instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
        return { instance };
      }),
    ),
  );
  const results = await Promise.all(instances.map(({ instance }) => instance));
  const statuses = {};
  for (const result of results) for (const [code, count] of Object.entries(statusCounts(result))) statuses[code] = (statuses[code] ?? 0) + count;
  return {
    statuses,
    latencies,
    responses: latencies.length,
    errors: results.reduce((n, r) => n + r.errors, 0),
    timeouts: results.reduce((n, r) => n + r.timeouts, 0),
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    maxMs: round(percentile(latencies, 100)),
  };
};

/**
 * What the database did, on PostgreSQL: transactions of the gateway's database (every statement
 * the gateway sends outside a transaction is one) and lookups in `api_keys` by digest (each key
 * lookup that reaches the database is one scan of the digest index; reading every digest once
 * is one sequential scan; the once-a-minute `last_used_at` write uses the primary key and is not counted).
 */
const postgresCounters = (databaseUrl) => {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  return async () => {
    const client = new pg.Client({ connectionString: SETTINGS.pgAdminUrl });
    await client.connect();
    try {
      const xacts = await client.query('select xact_commit + xact_rollback as n from pg_stat_database where datname = $1', [name]);
      const own = new pg.Client({ connectionString: databaseUrl });
      await own.connect();
      try {
        const scans = await own.query(`select (select coalesce(seq_scan, 0) from pg_stat_user_tables where relname = 'api_keys')
          + (select coalesce(idx_scan, 0) from pg_stat_user_indexes where indexrelname = 'api_keys_key_hash_unique') as n`);
        return { at: performance.now(), xacts: Number(xacts.rows[0]?.n ?? 0), keyScans: Number(scans.rows[0]?.n ?? 0) };
      } finally {
        await own.end();
      }
    } finally {
      await client.end();
    }
  };
};

/** Per second between two counter readings (minus the one transaction of a reading on the gateway's database). */
const rates = (before, after, seconds) =>
  before && after ? { xactsPerSec: round((after.xacts - before.xacts - 1) / seconds), keyScans: after.keyScans - before.keyScans } : null;

const check = (name, result, expect) => {
  const problems = [];
  if (result.errors || result.timeouts) problems.push(`${name}: ${result.errors} errors, ${result.timeouts} timeouts`);
  if (Object.keys(result.statuses).some((code) => Number(code) !== expect)) problems.push(`${name}: statuses ${JSON.stringify(result.statuses)}`);
  return problems;
};

const scenario = {
  scenario: 'unknown-keys',
  limitSeconds: () => selectedEngines().length * (IDLE_SECONDS + FLOOD_SECONDS + SETTINGS.warmupSeconds + (4 * STATS_SETTLE_MS) / 1000 + 120),

  async run() {
    const rows = [];
    const skipped = [];
    const logs = [];
    for (const engine of selectedEngines()) {
      const prepared = await setUpEngine(engine, skipped);
      if (prepared === null) continue;
      const key = await createApiKey(prepared.env);
      const gateway = await startGateway(`unknown-keys-${engine.name}`, prepared.env);
      const counters = prepared.env.DATABASE_URL ? postgresCounters(prepared.env.DATABASE_URL) : undefined;
      try {
        const valid = validRequest(key);
        const sample = await sampleRequest(`${gateway.url}${valid.path}`, valid);
        if (sample.status !== 400) throw new Error(`valid caller: sample got ${sample.status} ${sample.text}, expected 400 (Missing job field)`);
        // The first unknown key: the one the target allows to reach the database.
        const first = await sampleRequest(`${gateway.url}/api/jobs/status`, { headers: { 'x-api-key': unknownKey() } });
        if (first.status !== 401) throw new Error(`unknown key: sample got ${first.status} ${first.text}, expected 401`);

        console.log(`running unknown-keys for ${engine.name}: valid caller alone at ${VALID_RATE} req/s (${IDLE_SECONDS} s)…`);
        await sleep(STATS_SETTLE_MS);
        const idleStart = await counters?.();
        const idle = await validCaller(gateway.url, key, IDLE_SECONDS);
        await sleep(STATS_SETTLE_MS);
        const idleEnd = await counters?.();

        console.log(
          `running unknown-keys for ${engine.name}: flood of unknown keys at full speed (${SETTINGS.connections} connections, ${SETTINGS.warmupSeconds} s warm-up + ${FLOOD_SECONDS} s) with the valid caller beside it…`,
        );
        await autocannon({ url: gateway.url, requests: floodRequests, connections: SETTINGS.connections, duration: SETTINGS.warmupSeconds, timeout: 10 });
        await sleep(STATS_SETTLE_MS);
        const floodStart = await counters?.();
        const [flood, busy] = await Promise.all([
          autocannon({ url: gateway.url, requests: floodRequests, connections: SETTINGS.connections, duration: FLOOD_SECONDS, timeout: 10 }),
          validCaller(gateway.url, key, FLOOD_SECONDS),
        ]);
        await sleep(STATS_SETTLE_MS);
        const floodEnd = await counters?.();

        const floodStatuses = statusCounts(flood);
        const unknownRequests = flood.requests.total;
        const problems = [
          ...check('valid caller (idle)', idle, 400),
          ...check('valid caller (flood)', busy, 400),
          ...check('flood', { errors: flood.errors, timeouts: flood.timeouts, statuses: floodStatuses }, 401),
        ];
        // The settle pauses count as idle time too: the rate is over the whole interval between readings.
        const idleDb = rates(idleStart, idleEnd, idleStart && idleEnd ? (idleEnd.at - idleStart.at) / 1000 : 1);
        const floodDb = rates(floodStart, floodEnd, floodStart && floodEnd ? (floodEnd.at - floodStart.at) / 1000 : 1);
        rows.push({
          case: `${FLOOD_SECONDS} s of unknown keys + valid caller at ${VALID_RATE} req/s`,
          engine: engine.name,
          validIdle: { p50Ms: idle.p50Ms, p99Ms: idle.p99Ms, maxMs: idle.maxMs, responses: idle.responses },
          validFlood: { p50Ms: busy.p50Ms, p99Ms: busy.p99Ms, maxMs: busy.maxMs, responses: busy.responses, reqPerSec: round(busy.responses / FLOOD_SECONDS) },
          p99Ms: busy.p99Ms,
          unknownReqPerSec: round(flood.requests.average),
          unknownRequests,
          statuses: floodStatuses,
          database: counters
            ? {
                idleXactsPerSec: idleDb?.xactsPerSec,
                floodXactsPerSec: floodDb?.xactsPerSec,
                keyScansIdle: idleDb?.keyScans,
                keyScansFlood: floodDb?.keyScans,
                keyScansPerUnknownRequest: floodDb && unknownRequests > 0 ? round(floodDb.keyScans / unknownRequests, 4) : null,
                measuredWith:
                  'pg_stat_database (xact_commit + xact_rollback of the gateway database) and api_keys lookups by digest (pg_stat_user_tables.seq_scan + pg_stat_user_indexes.idx_scan of api_keys_key_hash_unique)',
              }
            : {
                measuredWith: 'not measurable from outside on the embedded database (one process); the KeyRepository contract counts the statements on PGlite',
              },
          problems,
        });
      } finally {
        logs.push(await stopGateway(gateway));
      }
    }
    for (const row of rows) {
      row.target = `valid p99 < ${GOAL_P99_MS} ms; 0 database lookups per unknown key after the first`;
      const slow = row.p99Ms >= GOAL_P99_MS;
      const scans = row.database.keyScansFlood;
      row.verdict = row.problems.length
        ? `INVALID: ${row.problems.join('; ')}`
        : [slow && `BELOW (valid p99 ${row.p99Ms} ms)`, scans > 0 && `DATABASE (${scans} api_keys scans during the flood)`].filter(Boolean).join(', ') ||
          'PASS';
    }
    return {
      scenario: 'unknown-keys',
      rows,
      skipped,
      logs,
      settings: { floodSeconds: FLOOD_SECONDS, idleSeconds: IDLE_SECONDS, validRate: VALID_RATE, connections: SETTINGS.connections },
    };
  },

  report({ rows }) {
    console.log(
      `\nUnknown keys: ${FLOOD_SECONDS} s of GET /api/jobs/status with a new well-formed unknown key per request at full speed (${SETTINGS.connections} connections), beside a valid caller (POST /api/create-job {} → 400) at ${VALID_RATE} req/s; idle = the valid caller alone for ${IDLE_SECONDS} s`,
    );
    console.table(
      rows.map((r) => ({
        engine: r.engine,
        'unknown req/s': Math.round(r.unknownReqPerSec),
        'valid p99 idle ms': r.validIdle.p99Ms,
        'valid p50 flood ms': r.validFlood.p50Ms,
        'valid p99 flood ms': r.validFlood.p99Ms,
        'valid max flood ms': r.validFlood.maxMs,
        'db xacts/s idle': r.database.idleXactsPerSec ?? 'n/a',
        'db xacts/s flood': r.database.floodXactsPerSec ?? 'n/a',
        'api_keys scans in flood': r.database.keyScansFlood ?? 'n/a',
        result: r.verdict,
      })),
    );
    for (const r of rows) console.log(`Database figures of ${r.engine}: ${r.database.measuredWith}`);
  },
};

export default scenario;
if (import.meta.main) await runStandalone(scenario);
