import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PinoLogger, createPino } from '../../src/adapters/logging/pino-logger.js';
import { Database } from '../../src/adapters/persistence/database.js';
import { MikroOrmInboundRequestStore } from '../../src/adapters/persistence/mikro-orm-inbound-request-store.js';
import { orderedTaskId } from '../../src/adapters/queue/task-ids.js';
import { snapshotRequest } from '../../src/domain/templates/request-snapshot.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { waitFor } from '../support/http.js';

/*
 * A request is stored before its answer and its runs are queued right after. A service killed in
 * between leaves the request stored and undispatched: the built server, started again on the same
 * DATA_DIR, queues and runs it, once.
 */
describe('e2e: trigger runs of a request stored but not queued when the service died', () => {
  let gateway: GatewayProcess | undefined;
  after(async () => gateway?.stop());

  it('queues and runs them at the next start, once: the request is then dispatched, and no later start runs it again', async function () {
    this.timeout(90_000);
    const dir = await tempDir('e2e-undispatched-dir');
    const dataDir = await migratedDataDir('e2e-undispatched-data');
    const triggersFile = join(dir, 'TRIGGERS.json');
    await writeFile(
      triggersFile,
      JSON.stringify([
        { name: 'left', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: "printf '%s\\n' {{body.n}} >> ran.txt" }] },
      ]),
    );
    // What a SIGKILL right after the answer leaves: the request stored, naming its run, nothing queued.
    const logger = new PinoLogger(createPino('silent'));
    const open = () => Database.open({ databaseUrl: undefined, dataDir, logger });
    let database = await open();
    const requestId = randomUUID();
    await new MikroOrmInboundRequestStore(database).record({
      id: requestId,
      watchPath: '/webhook',
      receivedAt: new Date(),
      request: JSON.stringify(snapshotRequest({ n: 'seven' }, {}, {})),
      triggers: ['left'],
      runs: [{ trigger: 'left', runId: orderedTaskId() }],
      replayOf: null,
    });
    await database.close();

    gateway = await startGateway({ DATA_DIR: dataDir, TRIGGERS_FILE: triggersFile, TRIGGERS_DIR: dir });
    const ran = () => readFile(join(dir, 'ran.txt'), 'utf8').catch(() => '');
    await waitFor(async () => (await ran()) !== '', 30_000, 'the run of the stored request ran');
    await gateway.stop();
    gateway = undefined;
    expect(await ran()).to.equal('seven\n');

    // Marked dispatched: no sweep of a later start finds it.
    database = await open();
    try {
      const store = new MikroOrmInboundRequestStore(database);
      expect(await store.undispatched(new Date(Date.now() + 60_000), 10)).to.deep.equal([]);
      expect((await store.find(requestId))?.triggers).to.deep.equal(['left']);
    } finally {
      await database.close();
    }
  });
});
