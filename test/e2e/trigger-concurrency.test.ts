import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { createKey, waitFor } from '../support/http.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../support/postgres.js';

/*
 * `concurrency: N` on the built server, two replicas on one PostgreSQL: whichever replica gets a
 * request, at most N runs of the trigger are inside its command at once, and with N = 1 they run
 * one after the other in the order they were fired. Each run appends `start n` and `end n` to
 * a file, holding its place for a moment in between (the work a run does, not a wait for proof).
 */

const events = async (dir: string, file: string): Promise<string[]> => (await readFile(join(dir, file), 'utf8').catch(() => '')).split('\n').filter(Boolean);

/** The most runs that were between their start and end at once. */
const mostAtOnce = (lines: readonly string[]): number => {
  let inside = 0;
  let most = 0;
  for (const line of lines) {
    inside += line.startsWith('start ') ? 1 : -1;
    most = Math.max(most, inside);
  }
  return most;
};

const command = (file: string): string => `printf 'start %s\\n' {{body.n}} >> ${file}; sleep 0.3; printf 'end %s\\n' {{body.n}} >> ${file}`;

describeWithPostgres('e2e: per-trigger concurrency across two replicas (PostgreSQL)', function () {
  this.timeout(180_000);
  let database: ScratchDatabase | undefined;
  let dir: string;
  let key: string;
  const replicas: GatewayProcess[] = [];

  before(async () => {
    database = await createScratchDatabase();
    dir = await tempDir('e2e-concurrency');
    await writeFile(
      join(dir, 'TRIGGERS.json'),
      JSON.stringify([
        { name: 'one-at-a-time', watch_path: '/webhook', enabled: true, concurrency: 1, actions: [{ type: 'command', command: command('one.txt') }] },
        { name: 'two-at-a-time', watch_path: '/webhook', enabled: true, concurrency: 2, actions: [{ type: 'command', command: command('two.txt') }] },
      ]),
    );
    const env = { DATABASE_URL: database.url, TRIGGERS_FILE: join(dir, 'TRIGGERS.json'), TRIGGERS_DIR: dir };
    // One after the other: both migrate the same database at start-up.
    replicas.push(await startGateway({ ...env, DATA_DIR: await tempDir('e2e-concurrency-a') }));
    replicas.push(await startGateway({ ...env, DATA_DIR: await tempDir('e2e-concurrency-b') }));
    key = await createKey(env);
  });

  after(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await database?.drop();
  });

  it('runs a concurrency-1 trigger one run at a time in firing order, and a concurrency-2 trigger at most two at once, whichever replica was called', async () => {
    const count = 6;
    for (let n = 1; n <= count; n++) {
      const response = await fetch(`${replicas[n % 2].url}/api/webhook`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ n }),
      });
      expect(response.status).to.equal(200);
    }
    const done = async (file: string) => (await events(dir, file)).filter((line) => line.startsWith('end ')).length === count;
    await waitFor(async () => (await done('one.txt')) && (await done('two.txt')), 60_000, 'every run');
    const one = await events(dir, 'one.txt');
    expect(one).to.deep.equal(Array.from({ length: count }, (_, i) => [`start ${i + 1}`, `end ${i + 1}`]).flat());
    const two = await events(dir, 'two.txt');
    expect(mostAtOnce(two)).to.be.at.most(2);
    expect(two.filter((line) => line.startsWith('start ')).sort()).to.deep.equal(Array.from({ length: count }, (_, i) => `start ${i + 1}`).sort());
  });
});
