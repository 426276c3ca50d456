import { expect } from 'chai';
import { ScheduleRetentionSweep } from '../../../../src/application/retention/schedule-retention-sweep.js';
import { RETENTION_SWEEP_QUEUE, SweepExpiredData, type RetentionPolicy } from '../../../../src/application/retention/sweep-expired-data.js';
import type { ActionRun } from '../../../../src/domain/triggers/action-run.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryActionRunRepository } from '../../../fakes/in-memory-action-run-repository.js';
import { InMemoryAdminStore } from '../../../fakes/in-memory-admin-store.js';
import { InMemoryAlbumStore } from '../../../fakes/in-memory-album-store.js';
import { InMemoryConversationStore } from '../../../fakes/in-memory-conversation-store.js';
import { InMemoryDeliveryLog } from '../../../fakes/in-memory-delivery-log.js';
import { InMemoryIdempotencyKeyStore } from '../../../fakes/in-memory-idempotency-key-store.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryLoginAttempts } from '../../../fakes/in-memory-login-attempts.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';

const DAY = 86_400_000;
const NOW = new Date('2026-06-01T12:00:00Z');
const ago = (ms: number): Date => new Date(NOW.getTime() - ms);
const POLICY: RetentionPolicy = {
  deliveriesDays: 7,
  chatTurnsDays: 90,
  actionRunsDays: 30,
  inboundRequestsDays: 30,
  loginWindowMs: 15 * 60_000,
  chatJobKeysDays: 15,
};

let n = 0;
const uuid = (): string => `50000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
const actionRun = (finishedAt: Date): ActionRun => ({
  runId: uuid(),
  trigger: 't',
  actionIndex: 0,
  type: 'command',
  status: 'succeeded',
  attempts: 1,
  startedAt: finishedAt,
  finishedAt,
  error: null,
  detail: {},
});
const request = (receivedAt: Date) => ({ id: uuid(), watchPath: '/webhook', receivedAt, request: '{}', triggers: ['t'], runs: [], replayOf: null });

describe('SweepExpiredData', () => {
  const make = (policy: RetentionPolicy = POLICY, limits = { batchSize: 1000, maxBatches: 20 }) => {
    const stores = {
      adminSessions: new InMemoryAdminStore(),
      loginAttempts: new InMemoryLoginAttempts(),
      deliveries: new InMemoryDeliveryLog(),
      chatTurns: new InMemoryConversationStore(),
      actionRuns: new InMemoryActionRunRepository(),
      inboundRequests: new InMemoryInboundRequestStore(),
      idempotencyKeys: new InMemoryIdempotencyKeyStore(),
    };
    const logger = new RecordingLogger();
    const clock = new FixedClock(NOW);
    return { stores, logger, clock, sweep: new SweepExpiredData(stores, policy, clock, logger, limits) };
  };

  /** One old and one recent record of every kind, old by the policy's measure as of NOW. */
  const fill = async ({ stores }: ReturnType<typeof make>) => {
    await stores.adminSessions.addSession('expired'.padStart(64, '0'), { csrfToken: 'a', expiresAt: ago(1) }, 'hash');
    await stores.adminSessions.addSession('live'.padStart(64, '0'), { csrfToken: 'b', expiresAt: new Date(NOW.getTime() + 1) }, 'hash');
    await stores.loginAttempts.take('ended'.padStart(64, '0'), ago(15 * 60_000), 15 * 60_000, 5);
    await stores.loginAttempts.take('current'.padStart(64, '0'), ago(15 * 60_000 - 1), 15 * 60_000, 5);
    await stores.deliveries.recordFirst('telegram:update:1', 'update');
    stores.deliveries.backdate('telegram:update:1', ago(7 * DAY + 1));
    await stores.deliveries.recordFirst('telegram:update:2', 'update');
    stores.deliveries.backdate('telegram:update:2', ago(7 * DAY - 1));
    await stores.chatTurns.append('telegram:old', [{ role: 'user', text: 'old' }]);
    stores.chatTurns.backdate('telegram:old', ago(90 * DAY + 1));
    await stores.chatTurns.append('telegram:recent', [{ role: 'user', text: 'recent' }]);
    stores.chatTurns.backdate('telegram:recent', ago(89 * DAY));
    await stores.actionRuns.save(actionRun(ago(30 * DAY + 1)));
    await stores.actionRuns.save(actionRun(ago(30 * DAY - 1)));
    await stores.inboundRequests.record(request(ago(30 * DAY + 1)));
    await stores.inboundRequests.record(request(ago(30 * DAY - 1)));
    for (const [key, age] of [
      ['expired', DAY + 1],
      ['live', DAY - 1],
    ] as const) {
      await stores.idempotencyKeys.claim({ scope: 's', key, fingerprint: 'f', jobId: key, createdAt: ago(age) }, new Date(0));
    }
    // A chat answer's job keys: kept as long as its task may still run (chatJobKeysDays), not 24 hours.
    for (const [key, age] of [
      ['task:expired#1', 15 * DAY + 1],
      ['task:live#1', 15 * DAY - 1],
    ] as const) {
      await stores.idempotencyKeys.claim({ scope: 'chat', key, fingerprint: 'f', jobId: key, createdAt: ago(age) }, new Date(0));
    }
  };

  it('deletes what outlived its retention as of the clock, and keeps what did not', async () => {
    const setup = make();
    await fill(setup);
    const { stores, sweep } = setup;
    const report = await sweep.execute();
    expect(Object.fromEntries(Object.entries(report).map(([kind, outcome]) => [kind, outcome.deleted]))).to.deep.equal({
      adminSessions: 1,
      loginAttempts: 1,
      idempotencyKeys: 1,
      chatJobKeys: 1,
      deliveries: 1,
      chatTurns: 1,
      actionRuns: 1,
      inboundRequests: 1,
    });
    expect([...stores.adminSessions.sessions.keys()]).to.deep.equal(['live'.padStart(64, '0')]);
    expect([...stores.loginAttempts.windows.keys()]).to.deep.equal(['current'.padStart(64, '0')]);
    expect([...stores.deliveries.seen.keys()]).to.deep.equal(['telegram:update:2']);
    expect([...stores.chatTurns.threads.keys()]).to.deep.equal(['telegram:recent']);
    expect(stores.actionRuns.runs.map((run) => run.finishedAt)).to.deep.equal([ago(30 * DAY - 1)]);
    expect([...stores.inboundRequests.requests.values()].map((r) => r.receivedAt)).to.deep.equal([ago(30 * DAY - 1)]);
    expect([...stores.idempotencyKeys.records.values()].map((r) => r.key)).to.deep.equal(['live', 'task:live#1']);
  });

  it("keeps a chat answer's job keys past the 24 hours of a caller's key, as long as the answer's task may still run (chatJobKeysDays)", async () => {
    const setup = make();
    const { stores, sweep } = setup;
    for (const [scope, key, age] of [
      ['s', 'caller', 2 * DAY],
      ['chat', 'task:two-days-old#1', 2 * DAY],
      ['chat', 'task:fourteen-days-old#1', 14 * DAY],
    ] as const) {
      await stores.idempotencyKeys.claim({ scope, key, fingerprint: 'f', jobId: key, createdAt: ago(age) }, new Date(0));
    }
    await sweep.execute();
    expect([...stores.idempotencyKeys.records.values()].map((r) => r.key)).to.deep.equal(['task:two-days-old#1', 'task:fourteen-days-old#1']);
    setup.clock.current = new Date(NOW.getTime() + 2 * DAY);
    await sweep.execute();
    expect([...stores.idempotencyKeys.records.values()].map((r) => r.key)).to.deep.equal(['task:two-days-old#1']);
  });

  it('forgets the stored messages of chat albums after a day, whatever the policy (they are needed for seconds)', async () => {
    const { stores, logger, clock } = make();
    const chatAlbums = new InMemoryAlbumStore();
    const photo = (messageId: string) => ({
      threadId: '42',
      text: '',
      attachments: [],
      metadata: { userId: 'telegram', chatTitle: 'Telegram', updateId: messageId, messageId, edited: false, albumId: '42:g' },
    });
    await chatAlbums.add('telegram:42:g', '1', photo('1'), ago(DAY + 1));
    await chatAlbums.add('telegram:42:g', '2', photo('2'), ago(DAY - 1));
    const keepingAll = { deliveriesDays: 0, chatTurnsDays: 0, actionRunsDays: 0, inboundRequestsDays: 0, loginWindowMs: 15 * 60_000, chatJobKeysDays: 0 };
    const report = await new SweepExpiredData({ ...stores, chatAlbums }, keepingAll, clock, logger).execute();
    expect(report.chatAlbums).to.deep.equal({ deleted: 1, more: false });
    expect((await chatAlbums.read('telegram:42:g')).items.map((item) => item.metadata.messageId)).to.deep.equal(['2']);
  });

  it('deletes nothing until the clock says a record outlived its retention', async () => {
    const setup = make();
    await fill(setup);
    setup.clock.current = ago(DAY);
    const report = await setup.sweep.execute();
    // A day earlier, nothing had outlived its retention yet.
    expect(Object.values(report).every((outcome) => outcome.deleted === 0)).to.equal(true);
    setup.clock.current = NOW;
    expect((await setup.sweep.execute()).deliveries.deleted).to.equal(1);
  });

  it('keeps a kind for good when its retention is 0', async () => {
    const setup = make({ ...POLICY, chatTurnsDays: 0, actionRunsDays: 0 });
    await fill(setup);
    const report = await setup.sweep.execute();
    expect(Object.keys(report)).to.deep.equal(['adminSessions', 'loginAttempts', 'idempotencyKeys', 'chatJobKeys', 'deliveries', 'inboundRequests']);
    expect(setup.stores.chatTurns.threads.size).to.equal(2);
    expect(setup.stores.actionRuns.runs).to.have.length(2);
  });

  it('deletes in batches and stops after its share, leaving the rest to the next sweep', async () => {
    const setup = make(POLICY, { batchSize: 2, maxBatches: 2 });
    const { stores, sweep, logger } = setup;
    for (let i = 0; i < 5; i++) {
      await stores.deliveries.recordFirst(`d-${i}`, 'push');
      stores.deliveries.backdate(`d-${i}`, ago(10 * DAY + i));
    }
    const calls: number[] = [];
    const deleteOlderThan = stores.deliveries.deleteOlderThan.bind(stores.deliveries);
    stores.deliveries.deleteOlderThan = async (cutoff, limit) => {
      calls.push(limit);
      return deleteOlderThan(cutoff, limit);
    };
    expect((await sweep.execute()).deliveries).to.deep.equal({ deleted: 4, more: true });
    expect(calls).to.deep.equal([2, 2]);
    expect(logger.entries.find((entry) => entry.message === 'retention sweep deleted expired records')?.fields)
      .to.include({ durationMs: 0 })
      .and.deep.include({ more: ['deliveries'] });
    expect((await sweep.execute()).deliveries).to.deep.equal({ deleted: 1, more: false });
    expect(stores.deliveries.seen.size).to.equal(0);
  });

  describe('a backlog larger than the regular batches (schedules attacker pass)', () => {
    /** `count` deliveries ten days old, straight into the fake's map (recordFirst stamps now). */
    const oldDeliveries = (stores: ReturnType<typeof make>['stores'], count: number) => {
      for (let i = 0; i < count; i++) stores.deliveries.seen.set(`d-${i}`, { event: 'push', receivedAt: ago(10 * DAY + i) });
    };

    it('by default works off more than 20 batches of a kind in one sweep: a service storing over 20 000 a kind an hour no longer grows for ever', async () => {
      const stores = make().stores;
      oldDeliveries(stores, 25_000);
      const sweep = new SweepExpiredData(stores, POLICY, new FixedClock(NOW), new RecordingLogger());
      expect((await sweep.execute()).deliveries).to.deep.equal({ deleted: 25_000, more: false });
      expect(stores.deliveries.seen.size).to.equal(0);
    });

    it('goes on a batch at a time after its regular share, pausing after each as long as it took, until its time is up', async () => {
      const clock = new FixedClock(NOW);
      const pauses: number[] = [];
      const setup = make();
      const { stores } = setup;
      oldDeliveries(stores, 9);
      const deleteOlderThan = stores.deliveries.deleteOlderThan.bind(stores.deliveries);
      stores.deliveries.deleteOlderThan = async (cutoff, limit) => {
        clock.advance(10);
        return deleteOlderThan(cutoff, limit);
      };
      const limits = { batchSize: 2, maxBatches: 1, backlogMs: 25, pause: async (ms: number) => void pauses.push(ms) };
      const sweep = new SweepExpiredData(stores, POLICY, clock, setup.logger, limits);
      // The regular batch ends at 10 ms, a backlog batch at 20 and one at 30 ms: 25 ms are up then.
      expect((await sweep.execute()).deliveries).to.deep.equal({ deleted: 6, more: true });
      expect(pauses).to.deep.equal([10, 10]);
      expect((await new SweepExpiredData(stores, POLICY, clock, setup.logger, { ...limits, backlogMs: 1000 }).execute()).deliveries).to.deep.equal({
        deleted: 3,
        more: false,
      });
    });
  });

  it('logs what it deleted at info, and a sweep that found nothing only at debug', async () => {
    const setup = make();
    await fill(setup);
    await setup.sweep.execute();
    await setup.sweep.execute();
    const [first, second] = setup.logger.entries.filter((entry) => entry.message.startsWith('retention sweep'));
    expect(first.level).to.equal('info');
    expect(first.fields).to.deep.include({
      deleted: { adminSessions: 1, loginAttempts: 1, idempotencyKeys: 1, chatJobKeys: 1, deliveries: 1, chatTurns: 1, actionRuns: 1, inboundRequests: 1 },
    });
    expect(second.level).to.equal('debug');
  });

  it('sweeps the other kinds when one fails, logs the failure, then rejects so that the sweep is retried', async () => {
    const setup = make();
    await fill(setup);
    setup.stores.chatTurns.deleteOlderThan = async () => {
      throw new Error('database unavailable');
    };
    const error = await setup.sweep.execute().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).to.equal('Retention sweep failed for chatTurns');
    expect(setup.stores.actionRuns.runs).to.have.length(1);
    expect(setup.stores.inboundRequests.requests.size).to.equal(1);
    const logged = setup.logger.entries.find((entry) => entry.level === 'error');
    expect(logged?.fields).to.include({ kind: 'chatTurns' });
  });
});

describe('ScheduleRetentionSweep', () => {
  const HOUR = 3_600_000;

  it('stores one sweep per period, however many replicas ask and however often', async () => {
    const queue = new InMemoryTaskQueue();
    const clock = new FixedClock();
    const replicas = [new ScheduleRetentionSweep(queue, clock, HOUR), new ScheduleRetentionSweep(queue, clock, HOUR)];
    const stored = [];
    for (const time of ['12:00:00.000', '12:20:00', '12:40:00', '12:59:59.999']) {
      clock.current = new Date(`2026-06-01T${time}Z`);
      for (const replica of replicas) stored.push(await replica.execute());
    }
    expect(stored.filter(Boolean)).to.have.length(1);
    expect(queue.tasks.map((task) => task.queue)).to.deep.equal([RETENTION_SWEEP_QUEUE]);
  });

  it('stores the next period’s sweep once that period began', async () => {
    const queue = new InMemoryTaskQueue();
    const clock = new FixedClock(new Date('2026-06-01T12:59:59.999Z'));
    const schedule = new ScheduleRetentionSweep(queue, clock, HOUR);
    expect(await schedule.execute()).to.equal(true);
    clock.advance(1);
    expect(await schedule.execute()).to.equal(true);
    expect(await schedule.execute()).to.equal(false);
    expect(queue.tasks).to.have.length(2);
  });
});
