// Scenario "triggers": authenticated POST /api/webhook with 10 enabled triggers that watch other
// endpoints (none fires), then with 1 matching trigger whose webhook action POSTs to a loopback
// receiver; every accepted request must be delivered exactly once. See bench/README.md.
// Usage: node bench/triggers.mjs (after a build); also run by bench/run.mjs.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  SETTINGS,
  drainRate,
  createApiKey,
  formatQueueReport,
  measure,
  queueReport,
  round,
  runStandalone,
  selectedEngines,
  sequencedRequests,
  startBaseline,
  startFakes,
  setUpEngine,
  startGateway,
  stopChild,
  stopGateway,
  tallyDeliveries,
  tempDir,
  waitForCount,
} from './lib.mjs';

/** The non-matching case must reach this % of the bare node:http baseline measured just before it. */
const GOAL_PCT = 40;
const WEBHOOK_ATTEMPTS = '4';
const SETTLE_SECONDS = 5;
/**
 * The matching case is measured over a number of requests rather than BENCH_SECONDS: every
 * accepted request queues a delivery, and on the embedded database the deliveries share the
 * event loop with the requests, so a fixed count keeps the run and its drain bounded.
 */
const MATCHING_WARMUP = 500;
const MATCHING_REQUESTS = (() => {
  const value = Number(process.env.BENCH_TRIGGER_REQUESTS ?? 3000);
  if (!Number.isSafeInteger(value) || value < SETTINGS.connections)
    throw new Error(`BENCH_TRIGGER_REQUESTS: "${process.env.BENCH_TRIGGER_REQUESTS}" must be a whole number of at least BENCH_CONNECTIONS`);
  return value;
})();
const FORWARD_TRIGGER = 'bench-forward';

/** 10 enabled triggers on other endpoints than /webhook; their webhook action would hit /receiver/unexpected. */
const otherTriggers = (fakesUrl) =>
  [
    '/codehost/webhook',
    '/codehost/webhook',
    '/codehost/webhook',
    '/create-job',
    '/create-job',
    '/jobs/status',
    '/jobs/status',
    '/messaging/webhook',
    '/messaging/register',
    '/messaging/register',
  ].map((watchPath, i) => ({
    name: `bench-other-${i + 1}`,
    watch_path: watchPath,
    enabled: true,
    actions: [{ type: 'webhook', url: `${fakesUrl}/receiver/unexpected`, method: 'POST', vars: { trigger: i + 1 } }],
  }));

const forwardTrigger = (receiverUrl) => ({
  name: FORWARD_TRIGGER,
  watch_path: '/webhook',
  enabled: true,
  actions: [{ type: 'webhook', url: receiverUrl, method: 'POST', headers: { 'x-bench': 'forward' }, vars: { source: 'agent-gateway-bench' } }],
});

const firedCheck = (expected) => (text) => {
  const answer = JSON.parse(text);
  return answer.ok === true && JSON.stringify(answer.triggers) === JSON.stringify(expected)
    ? undefined
    : `expected {"ok":true,"triggers":${JSON.stringify(expected)}}`;
};

const account = (accepted, counts) => {
  const { total, ...tally } = tallyDeliveries(accepted, counts);
  return { ...tally, deliveries: total };
};

const scenario = {
  scenario: 'triggers',
  limitSeconds: () =>
    selectedEngines().length * (3 * (SETTINGS.seconds + SETTINGS.warmupSeconds + 15) + 60 + 2 * 60 + SETTINGS.drainSeconds + SETTLE_SECONDS + 30),

  async run() {
    const rows = [];
    const skipped = [];
    const logs = [];
    const baseline = await startBaseline('bare');
    const koa = await startBaseline('koa-router');
    const fakes = await startFakes();
    try {
      for (const engine of selectedEngines()) {
        const prepared = await setUpEngine(engine, skipped);
        if (prepared === null) continue;
        const dir = await tempDir(`triggers-${engine.name}`);
        const receiver = `forward-${engine.name}`;
        const noneFile = join(dir, 'none-matching.json');
        const oneFile = join(dir, 'one-matching.json');
        await writeFile(noneFile, JSON.stringify(otherTriggers(fakes.url), null, 2));
        await writeFile(oneFile, JSON.stringify([...otherTriggers(fakes.url), forwardTrigger(`${fakes.url}/receiver/${receiver}`)], null, 2));
        const apiKey = await createApiKey(prepared.env);
        const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
        const env = { ...prepared.env, WEBHOOK_ATTEMPTS };

        console.log(`running GET / (bare node:http) for ${engine.name} (${SETTINGS.seconds} s)…`);
        const base = await measure({ name: 'baseline', url: `${baseline.url}/`, expect: 200 });
        rows.push({ case: 'GET / (bare node:http)', engine: engine.name, baseline: true, ...base });
        console.log(`running POST /api/webhook on Koa + @koa/router alone for ${engine.name} (${SETTINGS.seconds} s)…`);
        const framework = await measure({
          name: 'koa-router',
          url: `${koa.url}/api/webhook`,
          method: 'POST',
          headers,
          body: '{"event":"bench"}',
          expect: 200,
          check: firedCheck([]),
        });
        rows.push({ case: 'POST /api/webhook on Koa + @koa/router alone (reference)', engine: engine.name, ...framework });

        let gateway = await startGateway(`triggers-none-${engine.name}`, { ...env, TRIGGERS_FILE: noneFile });
        try {
          const name = 'POST /api/webhook, 10 triggers, none matching';
          console.log(`running ${name} for ${engine.name} (${SETTINGS.seconds} s)…`);
          const result = await measure({
            name,
            url: `${gateway.url}/api/webhook`,
            method: 'POST',
            headers,
            body: '{"event":"bench"}',
            expect: 200,
            check: firedCheck([]),
          });
          rows.push({ case: name, engine: engine.name, goal: GOAL_PCT, ...result });
        } finally {
          logs.push(await stopGateway(gateway));
        }

        gateway = await startGateway(`triggers-one-${engine.name}`, { ...env, TRIGGERS_FILE: oneFile });
        try {
          const name = 'POST /api/webhook, 1 matching trigger (webhook action)';
          console.log(`running ${name} for ${engine.name} (${MATCHING_WARMUP} + ${MATCHING_REQUESTS} requests), then waiting for the deliveries…`);
          const sequence = sequencedRequests({ path: '/api/webhook', headers, body: (n) => JSON.stringify({ event: 'bench', seq: n }), expect: 200 });
          const first = sequence.take();
          const result = await measure({
            name,
            url: `${gateway.url}/api/webhook`,
            method: 'POST',
            headers,
            body: sequence.body(first),
            expect: 200,
            // the sample is the first numbered request: once its answer is right, it counts as accepted
            check: (text) => firedCheck([FORWARD_TRIGGER])(text) ?? sequence.accept(first),
            options: { requests: sequence.requests },
            warmup: { amount: MATCHING_WARMUP },
            load: { amount: MATCHING_REQUESTS },
          });
          const loadEnded = Date.now();
          const { accepted } = sequence.state;
          const deliveredAccepted = async () => {
            const seqs = (await fakes.stats()).receiver[receiver]?.seqs ?? {};
            let n = 0;
            for (const seq of accepted) if (seqs[seq]) n++;
            return n;
          };
          const drain = await waitForCount(deliveredAccepted, accepted.size, { settleSeconds: SETTLE_SECONDS, everyMs: 500 });
          const stats = await fakes.stats();
          const tally = account(accepted, stats.receiver[receiver]?.seqs);
          const delivery = {
            engine: engine.name,
            ...tally,
            sent: sequence.state.sent,
            badBodies: stats.receiver[receiver]?.bad ?? 0,
            drainSeconds: drain.outcome === 'settled' ? round(drain.lastChangeMs / 1000) : null,
            waitedSeconds: round((Date.now() - loadEnded) / 1000),
            drainOutcome: drain.outcome,
            drainPerSecond: drainRate(drain),
          };
          rows.push({ case: name, engine: engine.name, ...result, delivery });
        } finally {
          logs.push(await stopGateway(gateway));
        }
        const matching = rows.find((r) => r.engine === engine.name && r.delivery);
        if (matching) matching.delivery.queue = await queueReport(env).catch((error) => ({ error: error.message }));
      }
      const unexpected = (await fakes.stats()).receiver.unexpected?.deliveries ?? 0;
      if (unexpected > 0) for (const row of rows) if (!row.baseline) row.problems.push(`${unexpected} deliveries from triggers that must not fire`);
    } finally {
      await Promise.all([stopChild(baseline.child), stopChild(koa.child), stopChild(fakes.child)]);
    }
    for (const row of rows) {
      const base = rows.find((r) => r.baseline && r.engine === row.engine)?.reqPerSec;
      row.pctOfBaseline = base ? round((row.reqPerSec / base) * 100) : null;
      row.target = row.goal === undefined ? (row.delivery ? 'each accepted request delivered once' : null) : `>= ${row.goal} %`;
      const d = row.delivery;
      if (d && d.badBodies > 0) row.problems.push(`${d.badBodies} deliveries without a sequence number`);
      row.verdict = row.problems.length
        ? `INVALID: ${row.problems.join('; ')}`
        : d
          ? [d.lost > 0 && `LOST ${d.lost}`, d.doubled > 0 && `DOUBLED ${d.doubled}`, d.drainOutcome !== 'settled' && `NOT DRAINED (${d.drainOutcome})`]
              .filter(Boolean)
              .join(', ') || 'PASS'
          : row.goal === undefined
            ? ''
            : row.pctOfBaseline >= row.goal
              ? 'PASS'
              : 'BELOW';
    }
    return {
      scenario: 'triggers',
      rows,
      skipped,
      logs,
      settings: {
        seconds: SETTINGS.seconds,
        connections: SETTINGS.connections,
        warmupSeconds: SETTINGS.warmupSeconds,
        matchingWarmupRequests: MATCHING_WARMUP,
        matchingRequests: MATCHING_REQUESTS,
        WEBHOOK_ATTEMPTS,
        drainLimitSeconds: SETTINGS.drainSeconds,
        settleSeconds: SETTLE_SECONDS,
      },
    };
  },

  report({ rows }) {
    console.log(
      `\nTriggers: POST /api/webhook, ${SETTINGS.connections} connections; baseline and none-matching: ${SETTINGS.warmupSeconds} s warm-up + ${SETTINGS.seconds} s; matching: ${MATCHING_WARMUP} + ${MATCHING_REQUESTS} requests; WEBHOOK_ATTEMPTS=${WEBHOOK_ATTEMPTS}`,
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
    const delivered = rows.filter((r) => r.delivery).map((r) => r.delivery);
    if (delivered.length === 0) return;
    console.log(
      `Deliveries of the matching trigger's webhook action (warm-up and sample request included; waited at most ${SETTINGS.drainSeconds} s, then ${SETTLE_SECONDS} s more for late duplicates)`,
    );
    console.table(
      delivered.map((d) => ({
        engine: d.engine,
        'accepted (200)': d.accepted,
        deliveries: d.deliveries,
        'accepted delivered': d.delivered,
        lost: d.lost,
        doubled: d.doubled,
        'in flight at stop': d.unconfirmed,
        'drain s': d.drainSeconds ?? `${d.drainOutcome} after ${d.waitedSeconds}`,
        'deliveries/s draining': d.drainPerSecond,
        result:
          [d.lost > 0 && `LOST ${d.lost}`, d.doubled > 0 && `DOUBLED ${d.doubled}`, d.drainOutcome !== 'settled' && 'NOT DRAINED'].filter(Boolean).join(', ') ||
          'PASS',
      })),
    );
    for (const d of delivered) console.log(`Task queue of ${d.engine} after the run: ${d.queue?.error ?? (d.queue ? formatQueueReport(d.queue) : 'not read')}`);
  },
};

export default scenario;
if (import.meta.main) await runStandalone(scenario);
