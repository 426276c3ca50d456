import type { ActionRunRepository } from '../../ports/action-run-repository.js';
import type { AlbumStore } from '../../ports/album-store.js';
import type { AdminStore } from '../../ports/admin-store.js';
import type { Clock } from '../../ports/clock.js';
import type { ConversationStore } from '../../ports/conversation-store.js';
import type { DeliveryLog } from '../../ports/delivery-log.js';
import type { ApprovalStore } from '../../ports/approval-store.js';
import type { IdempotencyKeyStore } from '../../ports/idempotency-key-store.js';
import { IDEMPOTENCY_WINDOW_MS } from '../../domain/jobs/idempotency.js';
import { KEYED_CHAT_SCOPE } from '../jobs/create-job-once.js';
import type { InboundRequestStore } from '../../ports/inbound-request-store.js';
import type { Logger } from '../../ports/logger.js';
import type { LoginAttempts } from '../../ports/login-attempts.js';
import type { ScheduleRunRepository } from '../../ports/schedule-run-repository.js';

/** The durable queue of retention sweeps (one task per sweep period, see ScheduleRetentionSweep). */
export const RETENTION_SWEEP_QUEUE = 'retention-sweep';

const DAY_MS = 86_400_000;

/** How long records are kept, in days; 0 keeps them for good. See docs/configuration.md. */
export interface RetentionPolicy {
  /** Accepted deliveries (code-host deliveries, chat update ids), remembered to refuse redeliveries. */
  readonly deliveriesDays: number;
  readonly chatTurnsDays: number;
  readonly actionRunsDays: number;
  /** Requests that fired triggers: at least as long as a queued trigger run can wait for its request. */
  readonly inboundRequestsDays: number;
  /** The admin login limit's window: attempts are forgotten once their window ended. */
  readonly loginWindowMs: number;
  /**
   * The keys of the jobs chat answers created (CreateJobOnce.keyed, scope `chat`): kept as long as
   * the answer's task may still run, so that an attempt of it run late (after an outage of days)
   * gets the job its first attempt created instead of creating it again — the queue's longest
   * wait for a task, which its retries do not lengthen, and a day (see docs/chat.md).
   * ReplyToChatMessage does not answer a task run again later than that.
   */
  readonly chatJobKeysDays: number;
}

export interface RetentionStores {
  readonly adminSessions: AdminStore;
  readonly loginAttempts: LoginAttempts;
  readonly deliveries: DeliveryLog;
  readonly chatTurns: ConversationStore;
  readonly actionRuns: ActionRunRepository;
  readonly inboundRequests: InboundRequestStore;
  /**
   * Create-job idempotency keys: a caller's forgotten once their 24-hour window ended, whatever the
   * policy; a chat answer's after `chatJobKeysDays`.
   */
  readonly idempotencyKeys: IdempotencyKeyStore;
  /** Decided and expired approvals: kept as long as the action runs they decided. */
  readonly approvals?: ApprovalStore;
  /** Schedule occurrences: kept as long as action runs, each schedule's latest one for good. */
  readonly scheduleRuns?: ScheduleRunRepository;
  /** Messages of chat albums: needed only until the album is answered (seconds); forgotten after a day, whatever the policy. */
  readonly chatAlbums?: AlbumStore;
}

/**
 * Each delete statement removes at most `batchSize` rows; a sweep runs up to `maxBatches` of them
 * per kind, then, for `backlogMs`, more of each kind left with a backlog.
 */
export interface SweepLimits {
  readonly batchSize: number;
  readonly maxBatches: number;
  /**
   * After its `maxBatches`, a kind with more expired goes on, a batch at a time in turn with the
   * others so left, until the sweep has run this long (ms), waiting after each batch as long as
   * it took: the sweep has the database at most half the time. Absent or 0: no such phase. Without
   * it a sweep per hour deletes at most 20 000 rows of a kind, and a service storing more than
   * that per hour (5.6 trigger requests a second) would grow for ever.
   */
  readonly backlogMs?: number;
  /** Waits `ms` between the backlog's batches (tests pass one that returns at once). */
  readonly pause?: (ms: number) => Promise<void>;
}

/** Rounds of backlog batches at most per sweep, whatever the clock says (a clock that stands still). */
const MAX_BACKLOG_ROUNDS = 10_000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Per kind of record: how many were deleted, and whether expired ones were left for the next sweep. */
export type SweepReport = Record<string, { readonly deleted: number; readonly more: boolean }>;

/**
 * One retention sweep: deletes what outlived its retention (expired admin sessions, ended
 * login windows, idempotency keys past their 24 hours (a chat answer's past `chatJobKeysDays`), old deliveries, chat turns, action runs and inbound requests), each kind in
 * short statements of a bounded batch, with a bounded number of batches per sweep, then a
 * backlog phase bounded in time that pauses between its batches (SweepLimits), so the database
 * is never held long; what is left goes at the next sweep. One kind failing does
 * not stop the others; the sweep then rejects (naming the kinds) so the queue retries it.
 */
export class SweepExpiredData {
  constructor(
    private readonly stores: RetentionStores,
    private readonly policy: RetentionPolicy,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly limits: SweepLimits = { batchSize: 1000, maxBatches: 20, backlogMs: 30_000 },
  ) {}

  async execute(): Promise<SweepReport> {
    const now = this.clock.now();
    const report: Record<string, { deleted: number; more: boolean }> = {};
    const failed: string[] = [];
    const kinds = this.#kinds(now);
    for (const [kind, deleteBatch] of kinds) {
      try {
        report[kind] = await this.#sweep(deleteBatch);
      } catch (error) {
        failed.push(kind);
        this.logger.error({ err: error, kind }, 'retention sweep could not delete expired records');
      }
    }
    await this.#backlog(kinds, report, failed, now);
    const deleted = Object.fromEntries(Object.entries(report).map(([kind, outcome]) => [kind, outcome.deleted]));
    const more = Object.keys(report).filter((kind) => report[kind].more);
    const fields = { deleted, ...(more.length > 0 ? { more } : {}), durationMs: this.clock.now().getTime() - now.getTime() };
    if (Object.values(deleted).some((count) => count > 0)) this.logger.info(fields, 'retention sweep deleted expired records');
    else this.logger.debug(fields, 'retention sweep found nothing expired');
    if (failed.length > 0) throw new Error(`Retention sweep failed for ${failed.join(', ')}`);
    return report;
  }

  /** The kinds to sweep now, each with its batch delete; kinds kept for good are left out. */
  #kinds(now: Date): Array<[string, (limit: number) => Promise<number>]> {
    const { stores, policy } = this;
    const before = (days: number): Date => new Date(now.getTime() - days * DAY_MS);
    const kinds: Array<[string, number, (limit: number) => Promise<number>]> = [
      ['adminSessions', 1, (limit) => stores.adminSessions.deleteExpiredSessions(now, limit)],
      ['loginAttempts', 1, (limit) => stores.loginAttempts.deleteEnded(now, policy.loginWindowMs, limit)],
      [
        'idempotencyKeys',
        1,
        (limit) => stores.idempotencyKeys.deleteOlderThan(new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS), limit, { notScope: KEYED_CHAT_SCOPE }),
      ],
      [
        'chatJobKeys',
        policy.chatJobKeysDays,
        (limit) => stores.idempotencyKeys.deleteOlderThan(before(policy.chatJobKeysDays), limit, { scope: KEYED_CHAT_SCOPE }),
      ],
      ['deliveries', policy.deliveriesDays, (limit) => stores.deliveries.deleteOlderThan(before(policy.deliveriesDays), limit)],
      ['chatTurns', policy.chatTurnsDays, (limit) => stores.chatTurns.deleteOlderThan(before(policy.chatTurnsDays), limit)],
      ['actionRuns', policy.actionRunsDays, (limit) => stores.actionRuns.deleteOlderThan(before(policy.actionRunsDays), limit)],
      ['inboundRequests', policy.inboundRequestsDays, (limit) => stores.inboundRequests.deleteOlderThan(before(policy.inboundRequestsDays), limit)],
    ];
    const { approvals } = stores;
    if (approvals) kinds.push(['approvals', policy.actionRunsDays, (limit) => approvals.deleteOlderThan(before(policy.actionRunsDays), limit)]);
    const scheduleRuns = stores.scheduleRuns;
    if (scheduleRuns) kinds.push(['scheduleRuns', policy.actionRunsDays, (limit) => scheduleRuns.deleteOlderThan(before(policy.actionRunsDays), limit)]);
    const chatAlbums = stores.chatAlbums;
    if (chatAlbums) kinds.push(['chatAlbums', 1, (limit) => chatAlbums.deleteOlderThan(before(1), limit)]);
    return kinds.filter(([, days]) => days > 0).map(([kind, , deleteBatch]) => [kind, deleteBatch]);
  }

  /**
   * The backlog phase (SweepLimits.backlogMs): the kinds left with more go on, one batch each in
   * turn, pausing after each as long as it took, until none is left or the time is up.
   */
  async #backlog(
    kinds: Array<[string, (limit: number) => Promise<number>]>,
    report: Record<string, { deleted: number; more: boolean }>,
    failed: string[],
    started: Date,
  ): Promise<void> {
    const { batchSize, backlogMs = 0, pause = sleep } = this.limits;
    if (backlogMs <= 0) return;
    let left = kinds.filter(([kind]) => report[kind]?.more);
    for (let round = 0; left.length > 0 && round < MAX_BACKLOG_ROUNDS; round++) {
      for (const [kind, deleteBatch] of left) {
        if (this.clock.now().getTime() - started.getTime() >= backlogMs) return;
        const before = this.clock.now().getTime();
        try {
          const count = await deleteBatch(batchSize);
          report[kind] = { deleted: report[kind].deleted + count, more: count >= batchSize };
        } catch (error) {
          report[kind] = { ...report[kind], more: true };
          failed.push(kind);
          this.logger.error({ err: error, kind }, 'retention sweep could not delete expired records');
          left = left.filter(([other]) => other !== kind);
          continue;
        }
        await pause(Math.max(0, this.clock.now().getTime() - before));
      }
      left = left.filter(([kind]) => report[kind].more);
    }
  }

  /** Deletes batch after batch until one comes back short (nothing left) or the sweep's share is used up. */
  async #sweep(deleteBatch: (limit: number) => Promise<number>): Promise<{ deleted: number; more: boolean }> {
    const { batchSize, maxBatches } = this.limits;
    let deleted = 0;
    for (let batch = 0; batch < maxBatches; batch++) {
      const count = await deleteBatch(batchSize);
      deleted += count;
      if (count < batchSize) return { deleted, more: false };
    }
    return { deleted, more: true };
  }
}
