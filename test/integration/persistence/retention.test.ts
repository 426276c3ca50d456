import { expect } from 'chai';
import { PgBoss, fromPglite } from 'pg-boss';
import { PinoLogger, createPino } from '../../../src/adapters/logging/pino-logger.js';
import { CachingConversationStore } from '../../../src/adapters/persistence/caching-conversation-store.js';
import { MikroOrmActionRunRepository } from '../../../src/adapters/persistence/mikro-orm-action-run-repository.js';
import { MikroOrmAdminStore } from '../../../src/adapters/persistence/mikro-orm-admin-store.js';
import { MikroOrmApprovalStore } from '../../../src/adapters/persistence/mikro-orm-approval-store.js';
import { MikroOrmConversationStore } from '../../../src/adapters/persistence/mikro-orm-conversation-store.js';
import { MikroOrmDeliveryLog } from '../../../src/adapters/persistence/mikro-orm-delivery-log.js';
import { MikroOrmIdempotencyKeyStore } from '../../../src/adapters/persistence/mikro-orm-idempotency-key-store.js';
import { MikroOrmInboundRequestStore } from '../../../src/adapters/persistence/mikro-orm-inbound-request-store.js';
import { MikroOrmLoginAttempts } from '../../../src/adapters/persistence/mikro-orm-login-attempts.js';
import { PgBossTaskQueue } from '../../../src/adapters/queue/pg-boss-task-queue.js';
import { SweepExpiredData } from '../../../src/application/retention/sweep-expired-data.js';
import type { ActionRun } from '../../../src/domain/triggers/action-run.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { openTestDatabase, sql, type Engine, type TestDatabase } from '../../support/databases.js';
import { describeWithPostgres } from '../../support/postgres.js';

const DAY = 86_400_000;
const WINDOW = 15 * 60_000;
const NOW = new Date('2026-06-01T12:00:00Z');
const ago = (ms: number): Date => new Date(NOW.getTime() - ms);
const digest = (name: string): string => name.padStart(64, '0');

const actionRun = (runId: string, finishedAt: Date): ActionRun => ({
  runId,
  trigger: 'deploy',
  actionIndex: 0,
  type: 'command',
  status: 'succeeded',
  attempts: 1,
  startedAt: finishedAt,
  finishedAt,
  error: null,
  detail: { exitCode: 0 },
});

/** The retention sweep against the real adapters, with an injected clock: old rows go, recent rows stay. */
const describeOn = (engine: Engine): void => {
  describe(`Retention sweep on ${engine}`, function () {
    this.timeout(60_000);
    let opened: TestDatabase | undefined;
    before(async () => {
      opened = await openTestDatabase(engine, 'retention');
    });
    after(async () => opened?.close());

    const count = async (table: string): Promise<number> =>
      Number((await sql<{ n: string | number }>(opened!.database, `select count(*) as n from ${table}`))[0].n);

    it('deletes every kind of expired record as of the clock, and keeps the recent ones', async () => {
      const db = opened!.database;
      const conversations = new MikroOrmConversationStore(db);
      const stores = {
        adminSessions: new MikroOrmAdminStore(db),
        loginAttempts: new MikroOrmLoginAttempts(db),
        deliveries: new MikroOrmDeliveryLog(db),
        chatTurns: engine === 'pglite' ? new CachingConversationStore(conversations, 20) : conversations,
        actionRuns: new MikroOrmActionRunRepository(db),
        inboundRequests: new MikroOrmInboundRequestStore(db),
        idempotencyKeys: new MikroOrmIdempotencyKeyStore(db),
      };
      await stores.adminSessions.setPasswordHash('scrypt$1024$8$1$salt$hash');
      await stores.adminSessions.addSession(digest('expired'), { csrfToken: 'a', expiresAt: ago(1) }, 'scrypt$1024$8$1$salt$hash');
      await stores.adminSessions.addSession(digest('live'), { csrfToken: 'b', expiresAt: new Date(NOW.getTime() + 1000) }, 'scrypt$1024$8$1$salt$hash');
      await stores.loginAttempts.take(digest('ended'), ago(WINDOW), WINDOW, 5);
      await stores.loginAttempts.take(digest('current'), ago(WINDOW - 1000), WINDOW, 5);
      // Rows the database dates itself are dated here by hand.
      await stores.deliveries.recordFirst('telegram:update:1', 'update');
      await stores.deliveries.recordFirst('telegram:update:2', 'update');
      await sql(db, 'update codehost_deliveries set received_at = ? where delivery_id = ?', [ago(7 * DAY + 1000), 'telegram:update:1']);
      await sql(db, 'update codehost_deliveries set received_at = ? where delivery_id = ?', [ago(6 * DAY), 'telegram:update:2']);
      await stores.chatTurns.append('telegram:1', [{ role: 'user', text: 'old' }]);
      await sql(db, 'update chat_turns set created_at = ?', [ago(91 * DAY)]);
      await stores.chatTurns.append('telegram:1', [{ role: 'user', text: 'recent' }]);
      await sql(db, "update chat_turns set created_at = ? where text = 'recent'", [ago(DAY)]);
      expect((await stores.chatTurns.recent('telegram:1', 10)).map((turn) => turn.text)).to.deep.equal(['old', 'recent']);
      await stores.actionRuns.save(actionRun('60000000-0000-4000-8000-000000000001', ago(31 * DAY)));
      await stores.actionRuns.save(actionRun('60000000-0000-4000-8000-000000000002', ago(29 * DAY)));
      for (const [id, days] of [
        ['70000000-0000-4000-8000-000000000001', 31],
        ['70000000-0000-4000-8000-000000000002', 29],
      ] as const) {
        await stores.inboundRequests.record({
          id,
          watchPath: '/webhook',
          receivedAt: ago(days * DAY),
          request: '{}',
          triggers: ['deploy'],
          runs: [],
          replayOf: null,
        });
      }

      for (const [n, age] of [
        [1, DAY + 1000],
        [2, DAY - 1000],
      ] as const) {
        const jobId = `80000000-0000-4000-8000-00000000000${n}`;
        await stores.idempotencyKeys.claim({ scope: 's', key: `k${n}`, fingerprint: 'f'.repeat(64), jobId, createdAt: ago(age) }, new Date(0));
      }

      const logger = new RecordingLogger();
      const sweep = new SweepExpiredData(
        stores,
        { deliveriesDays: 7, chatTurnsDays: 90, actionRunsDays: 30, inboundRequestsDays: 30, loginWindowMs: WINDOW, chatJobKeysDays: 15 },
        new FixedClock(NOW),
        logger,
        { batchSize: 1, maxBatches: 5 },
      );
      const report = await sweep.execute();

      expect(Object.fromEntries(Object.entries(report).map(([kind, outcome]) => [kind, outcome.deleted]))).to.deep.equal({
        adminSessions: 1,
        loginAttempts: 1,
        idempotencyKeys: 1,
        chatJobKeys: 0,
        deliveries: 1,
        chatTurns: 1,
        actionRuns: 1,
        inboundRequests: 1,
      });
      expect(await stores.adminSessions.session(digest('live'), NOW)).not.to.equal(null);
      expect(await count('admin_sessions')).to.equal(1);
      expect((await sql<{ client: string }>(db, 'select client from admin_login_attempts')).map((row) => row.client)).to.deep.equal([digest('current')]);
      expect(await stores.deliveries.recordFirst('telegram:update:2', 'update')).to.equal(false);
      expect(await stores.deliveries.recordFirst('telegram:update:1', 'update')).to.equal(true);
      expect((await stores.chatTurns.recent('telegram:1', 10)).map((turn) => turn.text)).to.deep.equal(['recent']);
      expect(await stores.actionRuns.forRun('60000000-0000-4000-8000-000000000001')).to.deep.equal([]);
      expect(await stores.actionRuns.forRun('60000000-0000-4000-8000-000000000002')).to.have.length(1);
      expect(await stores.inboundRequests.find('70000000-0000-4000-8000-000000000001')).to.equal(null);
      expect(await stores.inboundRequests.find('70000000-0000-4000-8000-000000000002')).not.to.equal(null);
      expect((await sql<{ idempotency_key: string }>(db, 'select idempotency_key from idempotency_keys')).map((row) => row.idempotency_key)).to.deep.equal([
        'k2',
      ]);
      expect(logger.entries.find((entry) => entry.level === 'info')?.message).to.equal('retention sweep deleted expired records');
    });

    it('keeps an old request an approval still waits on, or approved (its run reads it), and deletes it once the approval is decided otherwise', async () => {
      const db = opened!.database;
      const requests = new MikroOrmInboundRequestStore(db);
      const approvals = new MikroOrmApprovalStore(db);
      const ids = ['71000000-0000-4000-8000-000000000001', '71000000-0000-4000-8000-000000000002', '71000000-0000-4000-8000-000000000003'];
      for (const [index, id] of ids.entries()) {
        await requests.record({ id, watchPath: '/webhook', receivedAt: ago(40 * DAY), request: '{}', triggers: ['deploy'], runs: [], replayOf: null });
        await approvals.request({
          id: `72000000-0000-4000-8000-00000000000${index + 1}`,
          runId: `73000000-0000-4000-8000-00000000000${index + 1}`,
          trigger: 'deploy',
          actionIndex: 1,
          actionType: 'command',
          summary: 'command: deploy',
          requestId: id,
          watchPath: '/webhook',
          firedAt: ago(40 * DAY).toISOString(),
          status: 'pending',
          createdAt: ago(40 * DAY),
          expiresAt: new Date(NOW.getTime() + DAY),
          decidedBy: null,
          decidedAt: null,
        });
      }
      await approvals.decide(`72000000-0000-4000-8000-000000000002`, 'approved', 'admin UI', ago(DAY));
      await approvals.decide(`72000000-0000-4000-8000-000000000003`, 'denied', 'admin UI', ago(DAY));
      expect(await requests.deleteOlderThan(ago(30 * DAY), 10)).to.equal(1);
      expect(await requests.find(ids[0]), 'pending').not.to.equal(null);
      expect(await requests.find(ids[1]), 'approved').not.to.equal(null);
      expect(await requests.find(ids[2]), 'denied').to.equal(null);
    });

    it('gives the task queues the configured retention of finished and waiting tasks', async () => {
      const db = opened!.database;
      const connection = db.pglite ? { pglite: db.pglite } : { connectionString: String(db.orm.config.get('clientUrl')) };
      const queue = await PgBossTaskQueue.start(
        connection,
        {
          queues: ['retention-probe'],
          concurrency: 1,
          heartbeatSeconds: 10,
          superviseIntervalSeconds: 60,
          pollingIntervalSeconds: 1,
          retryLimit: 0,
          finishedTaskSeconds: 2 * 86_400,
          waitingTaskSeconds: 14 * 86_400,
        },
        new PinoLogger(createPino('silent')),
      );
      await queue.stop(0);
      const boss = db.pglite
        ? new PgBoss({ db: fromPglite(db.pglite), schema: 'pgboss', supervise: false, schedule: false })
        : new PgBoss({ connectionString: String(db.orm.config.get('clientUrl')), schema: 'pgboss', supervise: false, schedule: false });
      await boss.start();
      try {
        expect(await boss.getQueue('retention-probe')).to.include({ deleteAfterSeconds: 2 * 86_400, retentionSeconds: 14 * 86_400 });
      } finally {
        await boss.stop({ graceful: false, close: !db.pglite });
      }
    });
  });
};

describeOn('pglite');
describeWithPostgres('Retention sweep on PostgreSQL', () => describeOn('postgresql'));
