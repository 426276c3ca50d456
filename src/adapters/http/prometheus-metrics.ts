import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import type { CollectOperationalFigures } from '../../application/operations/collect-operational-figures.js';
import { JOB_STATUSES } from '../../domain/jobs/job.js';
import { ACTION_RUN_STATUSES } from '../../domain/triggers/action-run.js';
import { metricsChallenge } from './auth-challenge.js';
import { answerMethodNotAllowed } from './method-not-allowed.js';
import { RequestFigures } from './request-figures.js';

/**
 * Prometheus metrics: requests by route and status, a latency histogram, queue depth, jobs by
 * status, trigger action runs by outcome, and the process's own figures. Served at
 * GET (and HEAD) /metrics, behind `Authorization: Bearer <METRICS_TOKEN>` when a token is configured.
 */
export class PrometheusMetrics {
  readonly #registry = new Registry();
  readonly #requests = new RequestFigures();

  constructor(
    figures: CollectOperationalFigures,
    private readonly token: string | undefined,
  ) {
    this.#registry.registerMetric(this.#requests.requests() as unknown as Metric);
    this.#registry.registerMetric(this.#requests.latency() as unknown as Metric);
    collectDefaultMetrics({ register: this.#registry, prefix: 'agw_' });
    let pending: ReturnType<CollectOperationalFigures['execute']> | undefined;
    // One read per scrape, shared by the three gauges.
    const read = () => (pending ??= figures.execute().finally(() => setTimeout(() => (pending = undefined), 0)));
    new Gauge({
      name: 'agw_queue_depth',
      help: 'Background tasks waiting or running, per queue',
      labelNames: ['queue'],
      registers: [this.#registry],
      async collect() {
        for (const [queue, depth] of Object.entries((await read()).queueDepth)) this.set({ queue }, depth);
      },
    });
    new Gauge({
      name: 'agw_queue_failed_tasks',
      help: 'Background tasks that failed for good, per queue',
      labelNames: ['queue'],
      registers: [this.#registry],
      async collect() {
        for (const [queue, count] of Object.entries((await read()).failedTasks)) this.set({ queue }, count);
      },
    });
    new Gauge({
      name: 'agw_jobs',
      help: 'Agent jobs by status',
      labelNames: ['status'],
      registers: [this.#registry],
      async collect() {
        const jobs = (await read()).jobs;
        for (const status of JOB_STATUSES) this.set({ status }, jobs[status] ?? 0);
      },
    });
    new Gauge({
      name: 'agw_trigger_action_runs',
      help: 'Trigger action runs by outcome',
      labelNames: ['status'],
      registers: [this.#registry],
      async collect() {
        // Every status, 0 when none has it: a status whose last record changed must not keep its last count.
        const runs = (await read()).actionRuns;
        for (const status of ACTION_RUN_STATUSES) this.set({ status }, runs[status] ?? 0);
      },
    });
    new Gauge({
      name: 'agw_schedule_runs',
      help: 'Schedule occurrences recorded, by schedule and status (queued, running, succeeded, failed, missed, skipped)',
      labelNames: ['schedule', 'status'],
      registers: [this.#registry],
      async collect() {
        this.reset();
        for (const { schedule, status, count } of (await read()).scheduleRuns ?? []) this.set({ schedule, status }, count);
      },
    });
    new Gauge({
      name: 'agw_schedule_last_occurrence_seconds',
      help: "Time of each schedule's latest recorded occurrence (Unix seconds)",
      labelNames: ['schedule'],
      registers: [this.#registry],
      async collect() {
        this.reset();
        for (const { schedule, occurrence } of (await read()).scheduleLast ?? []) this.set({ schedule }, occurrence.getTime() / 1000);
      },
    });
  }

  /** Records one finished request (called by the request log middleware). */
  observe(route: string, method: string, status: number, seconds: number): void {
    this.#requests.observe(route, method, status, seconds);
  }

  /** GET /metrics; HEAD answers the same without the body (Koa drops it), another method 405. */
  endpoint(): Middleware {
    return async (ctx, next) => {
      if (ctx.path !== '/metrics') return next();
      ctx.state.routeName = 'metrics';
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return answerMethodNotAllowed(ctx, ['GET', 'HEAD']);
      if (this.token !== undefined && !bearerMatches(ctx.get('authorization'), this.token)) {
        ctx.status = 401;
        // A 401 names how to authenticate (RFC 9110 §11.6.1).
        ctx.set('www-authenticate', metricsChallenge(BEARER.test(ctx.get('authorization'))));
        ctx.body = { error: 'Unauthorized' };
        return;
      }
      ctx.type = this.#registry.contentType;
      ctx.body = await this.#registry.metrics();
    };
  }
}

/** Bearer credentials in `Authorization` (the scheme's name in any case), the token captured. */
const BEARER = /^bearer +(\S+) *$/i;

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * Whether `Authorization` carries `token` as a bearer token. The scheme's name is
 * case-insensitive (RFC 9110 §11.1: `bearer` is `Bearer`); the tokens are compared as digests,
 * in constant time whatever their lengths.
 */
const bearerMatches = (authorization: string, token: string): boolean => {
  const credentials = BEARER.exec(authorization);
  return credentials !== null && timingSafeEqual(digest(credentials[1]), digest(token));
};
