import { SequentialIds } from '../../fakes/sequential-ids.js';
import { dataDirFor } from '../../support/databases.js';
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PinoLogger, createPino } from '../../../src/adapters/logging/pino-logger.js';
import { Database } from '../../../src/adapters/persistence/database.js';
import { MikroOrmActionRunRepository } from '../../../src/adapters/persistence/mikro-orm-action-run-repository.js';
import { MikroOrmInboundRequestStore } from '../../../src/adapters/persistence/mikro-orm-inbound-request-store.js';
import { ChildProcessShellExecutor } from '../../../src/adapters/shell/child-process-shell-executor.js';
import type { TriggerRunTask } from '../../../src/application/triggers/fire-triggers.js';
import { RunTrigger } from '../../../src/application/triggers/run-trigger.js';
import { snapshotRequest } from '../../../src/domain/templates/request-snapshot.js';
import { validateTriggers } from '../../../src/domain/triggers/validate-triggers.js';
import type { HttpForwarder } from '../../../src/ports/http-forwarder.js';
import type { JobLauncher } from '../../../src/ports/job-launcher.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { tempDir } from '../../support/gateway-process.js';
import { createScratchDatabase, describeWithPostgres } from '../../support/postgres.js';
import { triggerCatalog } from '../../../src/container/trigger-catalog.js';

/*
 * Run once, record always: a command whose output the database cannot take as it is (a NUL
 * byte; output longer than the 16 KiB kept, whose kept beginning — 4 KiB — ends inside a
 * surrogate pair) runs exactly once and is recorded. Each run appends a line to runs.txt, which counts them.
 */

const { triggers } = validateTriggers(
  [
    { name: 'nul', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: "echo run >> runs.txt; printf 'before\\0after'" }] },
    {
      name: 'emoji',
      watch_path: '/webhook',
      enabled: true,
      actions: [{ type: 'command', command: "echo run >> runs.txt; printf '%4095s🎉%20000s' '' '' | tr ' ' a" }],
    },
  ],
  'test',
  triggerCatalog(),
);
const unused = {} as HttpForwarder & JobLauncher;

const describeRecording = (name: string, open: () => Promise<{ database: Database; close(): Promise<void> }>): void => {
  describe(`run once, record always: ${name}`, function () {
    this.timeout(60_000);
    let opened: { database: Database; close(): Promise<void> };
    before(async () => {
      opened = await open();
    });
    after(async () => opened?.close());

    const runOnce = async (trigger: string, runId: string) => {
      const dir = await tempDir('record-once');
      const runs = new MikroOrmActionRunRepository(opened.database);
      const requests = new MikroOrmInboundRequestStore(opened.database);
      const requestId = runId.replace(/^3/, '2');
      await requests.record({
        id: requestId,
        watchPath: '/webhook',
        receivedAt: new Date(),
        request: JSON.stringify(snapshotRequest({}, {}, {})),
        triggers: [trigger],
        runs: [],
        replayOf: null,
      });
      const logger = new RecordingLogger();
      const runner = new RunTrigger(triggers, runs, requests, new ChildProcessShellExecutor(), unused, unused, new SequentialIds(), new FixedClock(), logger, {
        triggersDir: dir,
        commandTimeoutMs: 10_000,
        commandEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
      const task: TriggerRunTask = { runId, trigger, watchPath: '/webhook', firedAt: new Date().toISOString(), requestId };
      await runner.execute(task); // resolves: the queue has nothing to retry
      return { runs: (await readFile(join(dir, 'runs.txt'), 'utf8')).split('\n').filter(Boolean).length, recorded: await runs.forRun(runId), logger };
    };

    it('a command printing a NUL byte', async () => {
      const { runs, recorded, logger } = await runOnce('nul', '30000000-0000-4000-8000-000000000001');
      expect(runs, 'times the command ran').to.equal(1);
      expect(recorded.map((r) => [r.status, r.detail.output])).to.deep.equal([['succeeded', 'before\ufffdafter']]);
      expect(logger.entries.filter((e) => e.level === 'error')).to.deep.equal([]);
    });

    it('a command printing 4095 ASCII characters, an emoji, then 20 000 more', async () => {
      const { runs, recorded, logger } = await runOnce('emoji', '30000000-0000-4000-8000-000000000002');
      expect(runs, 'times the command ran').to.equal(1);
      expect(recorded.map((r) => [r.status, r.detail.output])).to.deep.equal([
        ['succeeded', `${'a'.repeat(4095)}\n[… 7714 characters left out …]\n${'a'.repeat(12 * 1024)}`],
      ]);
      expect(logger.entries.filter((e) => e.level === 'error')).to.deep.equal([]);
    });
  });
};

const logger = new PinoLogger(createPino('silent'));
const onDatabase = async (databaseUrl: string | undefined, drop: () => Promise<void>) => {
  const database = await Database.open({ databaseUrl, dataDir: await dataDirFor(databaseUrl, 'record-once-db'), logger });
  await database.migrate();
  return {
    database,
    close: async () => {
      await database.close();
      await drop();
    },
  };
};

describeRecording('MikroORM on PGlite', () => onDatabase(undefined, async () => undefined));

describeWithPostgres('run once, record always on PostgreSQL', () => {
  describeRecording('MikroORM on PostgreSQL', async () => {
    const scratch = await createScratchDatabase();
    return onDatabase(scratch.url, () => scratch.drop());
  });
});
