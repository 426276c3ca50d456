// Scenario "messaging": POST /api/messaging/webhook with valid Telegram updates at a fixed rate,
// against a fake Bot API and a fake model answering after 200 ms: the webhook's answer time, and
// one reply per accepted update once the background work has drained. See bench/README.md.
// Usage: node bench/messaging.mjs (after a build); also run by bench/run.mjs.
import autocannon from 'autocannon';
import {
  SETTINGS,
  drainRate,
  percentile,
  formatQueueReport,
  queueReport,
  round,
  runStandalone,
  sampleRequest,
  selectedEngines,
  sequencedRequests,
  sleep,
  startFakes,
  startGateway,
  statusCounts,
  setUpEngine,
  stopChild,
  stopGateway,
  tallyDeliveries,
  waitForCount,
} from './lib.mjs';

const number = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name}: "${process.env[name]}" is not a positive whole number`);
  return value;
};

const RATE = number('BENCH_MSG_RATE', 500);
const SECONDS = number('BENCH_MSG_SECONDS', 5);
const WARMUP_SECONDS = 1;
/**
 * The gateway's chat queue runs at most one message per chat and QUEUE_CONCURRENCY × 10 (40)
 * messages per poll, one poll a second: 40 chats is the most it can use, and draining the
 * (1 + 5) s × 500 messages takes about 75 s. See the README.
 */
const CHATS = number('BENCH_MSG_CHATS', 40);
/** autocannon paces per connection and per second (a burst at the start of each second): PHASES instances started 1/PHASES s apart spread the load. */
const PHASES = number('BENCH_MSG_PHASES', 10);
const CONNECTIONS_PER_PHASE = number('BENCH_MSG_CONNECTIONS_PER_PHASE', 5);
const LLM_DELAY_MS = 200;
const GOAL_P99_MS = 50;
const SETTLE_SECONDS = 5;
/** Consecutive runs per engine (issue 15.6: p99 < 50 ms in every one of 5); each on a fresh gateway and database. */
const RUNS = number('BENCH_MSG_RUNS', 1);

const BOT_TOKEN = '123456:BENCH-token-AAAAbbbbCCCC';
const SECRET = 'bench-webhook_secret-0123456789';
const FIRST_CHAT = 7_000_001;
const UPDATE_BASE = 800_000_000;

/** A private-chat text message shaped like the Bot API's Update; `n` picks the chat and is in the text. */
const update = (n) => {
  const chat = FIRST_CHAT + (n % CHATS);
  return JSON.stringify({
    update_id: UPDATE_BASE + n,
    message: {
      message_id: n,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chat, type: 'private', first_name: 'Bench' },
      from: { id: chat, is_bot: false, first_name: 'Bench' },
      text: `bench message #${n}`,
    },
  });
};

/**
 * Drives `rate` requests/s for `seconds` with PHASES autocannon instances (each rate/PHASES
 * req/s on CONNECTIONS_PER_PHASE connections) started 1/PHASES s apart. Returns the summed
 * status counts, errors and timeouts, and the raw answer times of every response.
 */
const pacedLoad = async ({ url, requests, rate, seconds }) => {
  const latencies = [];
  const perPhase = Math.max(1, Math.round(rate / PHASES));
  const instances = await Promise.all(
    Array.from({ length: PHASES }, (_, i) =>
      sleep((i * 1000) / PHASES).then(() => {
        const instance = autocannon({
          url,
          requests,
          duration: seconds,
          timeout: 10,
          connections: Math.min(CONNECTIONS_PER_PHASE, perPhase),
          overallRate: perPhase,
          // autocannon "corrects" latencies for coordinated omission with a 1 ms interval at these rates; keep raw times.
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
    errors: results.reduce((n, r) => n + r.errors, 0),
    timeouts: results.reduce((n, r) => n + r.timeouts, 0),
    responses: latencies.length,
    latencies,
  };
};

/**
 * Per-chat order: update x must be replied before update y of the same chat when x had been
 * accepted before y was sent (otherwise the two were in flight together and either order is
 * right). Counts the pairs replied the other way round.
 */
const orderViolations = (order = {}, { sentAt, acceptedAt }) => {
  let count = 0;
  const examples = [];
  for (const [chat, replies] of Object.entries(order)) {
    for (let j = 1; j < replies.length; j++) {
      const acceptedLater = acceptedAt.get(replies[j]);
      if (acceptedLater === undefined) continue;
      // replies[i] got its reply before replies[j]: wrong when replies[j] was accepted before replies[i] was sent
      for (let i = 0; i < j; i++) {
        const sent = sentAt.get(replies[i]);
        if (sent === undefined || !(acceptedLater < sent)) continue;
        count++;
        if (examples.length < 10)
          examples.push({ chat: Number(chat), repliedFirst: replies[i], repliedAfter: replies[j], acceptedMsBeforeOtherWasSent: round(sent - acceptedLater) });
      }
    }
  }
  return { count, examples };
};

const account = (accepted, counts) => {
  const { total, ...tally } = tallyDeliveries(accepted, counts);
  return { ...tally, replies: total };
};

const scenario = {
  scenario: 'messaging',
  limitSeconds: () => selectedEngines().length * RUNS * (WARMUP_SECONDS + SECONDS + 60 + SETTINGS.drainSeconds + SETTLE_SECONDS + 30),

  async run() {
    const rows = [];
    const skipped = [];
    const logs = [];
    const chats = Array.from({ length: CHATS }, (_, i) => FIRST_CHAT + i);
    for (const engine of selectedEngines())
      for (let run = 1; run <= RUNS; run++) {
        const prepared = await setUpEngine(engine, skipped);
        if (prepared === null) break;
        // Fresh fakes per engine: their counts are the engine's alone.
        const fakes = await startFakes({ BOT_TOKEN, LLM_DELAY_MS: String(LLM_DELAY_MS) });
        const gateway = await startGateway(`messaging-${engine.name}${RUNS > 1 ? `-${run}` : ''}`, {
          ...prepared.env,
          MESSAGING_BOT_TOKEN: BOT_TOKEN,
          MESSAGING_WEBHOOK_SECRET: SECRET,
          MESSAGING_API_URL: fakes.url,
          MESSAGING_ALLOWED_CHAT_IDS: chats.join(','),
          LLM_PROVIDER: 'custom',
          LLM_BASE_URL: `${fakes.url}/v1`,
          LLM_MODEL: 'fake',
        });
        try {
          const name = `POST /api/messaging/webhook at ${RATE} req/s`;
          const headers = { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET };
          const sequence = sequencedRequests({ path: '/api/messaging/webhook', headers, body: update, expect: 200 });
          const url = `${gateway.url}/api/messaging/webhook`;
          const first = sequence.take();
          const sample = await sampleRequest(url, { method: 'POST', headers, body: update(first) });
          if (sample.status !== 200 || sample.text !== '{"ok":true}')
            throw new Error(`${name}: sample got ${sample.status} ${sample.text}, expected 200 {"ok":true}`);
          sequence.accept(first);
          console.log(
            `${RUNS > 1 ? `run ${run}/${RUNS}: ` : ''}running ${name} for ${engine.name} (${WARMUP_SECONDS} s warm-up + ${SECONDS} s, ${CHATS} chats), then waiting for the replies…`,
          );
          await pacedLoad({ url, requests: sequence.requests, rate: RATE, seconds: WARMUP_SECONDS });
          const load = await pacedLoad({ url, requests: sequence.requests, rate: RATE, seconds: SECONDS });
          const loadEnded = Date.now();
          const { accepted } = sequence.state;
          const repliedAccepted = async () => {
            const replies = (await fakes.stats()).telegram.replies;
            let n = 0;
            for (const seq of accepted) if (replies[seq]) n++;
            return n;
          };
          const drain = await waitForCount(repliedAccepted, accepted.size, { settleSeconds: SETTLE_SECONDS, everyMs: 500 });
          const stats = await fakes.stats();
          const tally = account(accepted, stats.telegram.replies);
          const order = orderViolations(stats.telegram.order, sequence.state);
          const problems = [];
          if (load.errors || load.timeouts) problems.push(`${load.errors} errors, ${load.timeouts} timeouts`);
          if (Object.keys(load.statuses).some((code) => Number(code) !== 200)) problems.push(`statuses ${JSON.stringify(load.statuses)}`);
          if (stats.telegram.unauthorized > 0) problems.push(`${stats.telegram.unauthorized} Bot API calls with a wrong token`);
          rows.push({
            case: name,
            engine: engine.name,
            run,
            reqPerSec: load.responses / SECONDS,
            p50Ms: round(percentile(load.latencies, 50)),
            p99Ms: round(percentile(load.latencies, 99)),
            maxMs: round(percentile(load.latencies, 100)),
            total: load.responses,
            statuses: load.statuses,
            problems,
            delivery: {
              ...tally,
              sent: sequence.state.sent,
              apologies: stats.telegram.apologies,
              unnumbered: stats.telegram.unnumbered,
              outOfOrder: order.count,
              outOfOrderExamples: order.examples,
              drainSeconds: drain.outcome === 'settled' ? round(drain.lastChangeMs / 1000) : null,
              waitedSeconds: round((Date.now() - loadEnded) / 1000),
              drainOutcome: drain.outcome,
              drainPerSecond: drainRate(drain),
              botApiCalls: stats.telegram.calls,
              llmRequests: stats.llm.requests,
              llmMaxInFlight: stats.llm.maxInFlight,
            },
          });
        } finally {
          logs.push(await stopGateway(gateway));
          await stopChild(fakes.child);
        }
        const row = rows.find((r) => r.engine === engine.name && r.run === run);
        if (row) row.delivery.queue = await queueReport(prepared.env).catch((error) => ({ error: error.message }));
      }
    for (const row of rows) {
      const d = row.delivery;
      row.target = `p99 < ${GOAL_P99_MS} ms at ${RATE} req/s; replies = accepted`;
      const slow = row.p99Ms >= GOAL_P99_MS;
      const underRate = row.reqPerSec < RATE * 0.95;
      row.verdict = row.problems.length
        ? `INVALID: ${row.problems.join('; ')}`
        : [
            (slow || underRate) &&
              `BELOW (${[slow && `p99 ${row.p99Ms} ms`, underRate && `${Math.round(row.reqPerSec)} req/s offered`].filter(Boolean).join(', ')})`,
            d.lost > 0 && `LOST ${d.lost}`,
            d.doubled > 0 && `DOUBLED ${d.doubled}`,
            d.apologies > 0 && `${d.apologies} APOLOGIES`,
            d.outOfOrder > 0 && `OUT OF ORDER ${d.outOfOrder}`,
            d.drainOutcome !== 'settled' && `NOT DRAINED (${d.drainOutcome})`,
          ]
            .filter(Boolean)
            .join(', ') || 'PASS';
    }
    return {
      scenario: 'messaging',
      rows,
      skipped,
      logs,
      settings: {
        rate: RATE,
        seconds: SECONDS,
        warmupSeconds: WARMUP_SECONDS,
        chats: CHATS,
        runs: RUNS,
        phases: PHASES,
        connectionsPerPhase: CONNECTIONS_PER_PHASE,
        llmDelayMs: LLM_DELAY_MS,
        drainLimitSeconds: SETTINGS.drainSeconds,
        settleSeconds: SETTLE_SECONDS,
      },
    };
  },

  report({ rows }) {
    console.log(
      `\nMessaging: ${RATE} req/s for ${SECONDS} s after a ${WARMUP_SECONDS} s warm-up, ${CHATS} chats, model answering after ${LLM_DELAY_MS} ms (${PHASES} autocannon instances × ${CONNECTIONS_PER_PHASE} connections, staggered)`,
    );
    console.table(
      rows.map((r) => ({
        case: r.case,
        engine: r.engine,
        run: r.run,
        'req/s': Math.round(r.reqPerSec),
        'p50 ms': r.p50Ms,
        'p99 ms': r.p99Ms,
        'max ms': r.maxMs,
        target: r.target,
        result: r.verdict,
      })),
    );
    console.log(
      `Replies (sendMessage calls on the fake Bot API) to the accepted updates (sample and warm-up included; waited at most ${SETTINGS.drainSeconds} s, then ${SETTLE_SECONDS} s more for late duplicates)`,
    );
    console.table(
      rows.map((r) => ({
        engine: r.engine,
        run: r.run,
        'accepted (200)': r.delivery.accepted,
        replies: r.delivery.replies,
        'accepted replied': r.delivery.delivered,
        lost: r.delivery.lost,
        doubled: r.delivery.doubled,
        'in flight at stop': r.delivery.unconfirmed,
        apologies: r.delivery.apologies,
        'out of order': r.delivery.outOfOrder,
        'drain s': r.delivery.drainSeconds ?? `${r.delivery.drainOutcome} after ${r.delivery.waitedSeconds}`,
        'replies/s draining': r.delivery.drainPerSecond,
      })),
    );
    for (const r of rows)
      console.log(
        `Task queue of ${r.engine}${RUNS > 1 ? ` (run ${r.run})` : ''} after the run: ${r.delivery.queue?.error ?? (r.delivery.queue ? formatQueueReport(r.delivery.queue) : 'not read')}`,
      );
    // issue 15.6: p99 under the goal, at the rate, nothing lost or doubled, in every run.
    console.log(`\nSummary: p99 < ${GOAL_P99_MS} ms at ${RATE} req/s in every one of ${RUNS} consecutive run(s), every accepted update replied once`);
    console.table(
      [...new Set(rows.map((r) => r.engine))].map((engine) => {
        const mine = rows.filter((r) => r.engine === engine);
        const p99s = mine.map((r) => r.p99Ms);
        const sorted = [...p99s].sort((a, b) => a - b);
        return {
          engine,
          runs: mine.length,
          'per-run p99 ms': p99s.join(' '),
          'median p99 ms': sorted[Math.floor((sorted.length - 1) / 2)],
          'worst p99 ms': sorted.at(-1),
          'runs PASS': mine.filter((r) => r.verdict === 'PASS').length,
          result: mine.length === RUNS && mine.every((r) => r.verdict === 'PASS') ? 'met' : 'not met',
        };
      }),
    );
    for (const r of rows.filter((row) => row.delivery.outOfOrder > 0)) {
      console.log(
        `Out of order on ${r.engine} (first ${r.delivery.outOfOrderExamples.length}): ${r.delivery.outOfOrderExamples
          .map(
            (e) =>
              `chat ${e.chat}: #${e.repliedFirst} replied before #${e.repliedAfter}, which was accepted ${e.acceptedMsBeforeOtherWasSent} ms before #${e.repliedFirst} was sent`,
          )
          .join('; ')}`,
      );
    }
  },
};

export default scenario;
if (import.meta.main) await runStandalone(scenario);
