import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { createPino, PinoLogger } from '../../src/adapters/logging/pino-logger.js';
import { Database } from '../../src/adapters/persistence/database.js';
import { MikroOrmInboundRequestStore } from '../../src/adapters/persistence/mikro-orm-inbound-request-store.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { runCli, startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';

/*
 * `deliveries list` pages with the RECEIVED time and the ID of the last line shown (--before,
 * --before-id): every stored delivery is listed exactly once across the pages, also those
 * received in the same millisecond (common under load), on the database opened by the CLI and
 * through the running server's admin socket alike. Its JSON gives the path as the plain text
 * does; `deliveries show --json` has the same fields, snake_case, and no internal ones.
 */

interface Row {
  readonly id: string;
  readonly received_at: string;
  readonly path: string;
  readonly triggers: string[];
  readonly replay_of: string | null;
}

const SAME = new Date('2026-11-24T10:00:00.123Z');

/** A migrated data directory holding 2 + 9 + 1 stored requests, 9 of them received at SAME. */
const prepare = async (): Promise<{ env: Record<string, string>; ids: string[] }> => {
  const dir = await tempDir('deliveries-paging');
  await writeFile(join(dir, 'TRIGGERS.json'), '[]');
  const dataDir = await migratedDataDir('deliveries-paging-data');
  const database = await Database.open({ databaseUrl: undefined, dataDir, logger: new PinoLogger(createPino('silent')) });
  const ids: string[] = [];
  try {
    const store = new MikroOrmInboundRequestStore(database);
    const times = [new Date(SAME.getTime() + 5), new Date(SAME.getTime() + 1), ...Array.from({ length: 9 }, () => SAME), new Date(SAME.getTime() - 1)];
    const requests = times.map((receivedAt) => ({
      id: randomUUID(),
      watchPath: '/webhook',
      receivedAt,
      request: JSON.stringify({ body: { at: receivedAt.toISOString() }, query: {}, headers: {} }),
      triggers: ['record'],
      runs: [],
      replayOf: null,
    }));
    await Promise.all(requests.map((request) => store.record(request)));
    ids.push(...requests.map((request) => request.id));
  } finally {
    await database.close();
  }
  return { env: { DATA_DIR: dataDir, TRIGGERS_FILE: join(dir, 'TRIGGERS.json'), TRIGGERS_DIR: dir }, ids };
};

const list = async (env: Record<string, string>, args: string[]): Promise<Row[]> => {
  const result = await runCli(['deliveries', 'list', '--json', ...args], env);
  expect(result.code, result.stderr).to.equal(0);
  return JSON.parse(result.stdout) as Row[];
};

/** Every id listed, page after page of `limit`, each page `--before` and `--before-id` the last row of the one before. */
const everyPage = async (env: Record<string, string>, limit: number): Promise<string[]> => {
  const listed: string[] = [];
  let page = await list(env, ['--limit', String(limit)]);
  listed.push(...page.map((row) => row.id));
  // A page shorter than `limit` is the last (each CLI run takes seconds: none more than needed).
  while (page.length === limit) {
    const last = page.at(-1)!;
    page = await list(env, ['--limit', String(limit), '--before', last.received_at, '--before-id', last.id]);
    listed.push(...page.map((row) => row.id));
  }
  return listed;
};

/** The ids in the list's order: newest first, then by id, descending. */
const inOrder = (ids: readonly string[]): string[] => [ids[0], ids[1], ...ids.slice(2, -1).toSorted().reverse(), ids.at(-1)!];

describe('e2e: `deliveries list` pages and JSON', function () {
  this.timeout(180_000);
  let gateway: GatewayProcess | undefined;
  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
  });

  it('lists every delivery exactly once across pages of --before and --before-id, on the database and through the running server', async () => {
    const { env, ids } = await prepare();
    const all = await list(env, ['--limit', '500']);
    expect(all.map((row) => row.id)).to.deep.equal(inOrder(ids));
    // Pages ending inside the millisecond's nine (12 rows: 5, 5, 2; then 4, 4, 4 — the last page full, the next one empty).
    expect(await everyPage(env, 5)).to.deep.equal(inOrder(ids));
    gateway = await startGateway(env);
    expect(await everyPage(env, 4)).to.deep.equal(inOrder(ids));
    // --before alone: what was received before that time, as documented.
    expect((await list(env, ['--before', SAME.toISOString()])).map((row) => row.id)).to.deep.equal([ids.at(-1)]);
    const refused = await runCli(['deliveries', 'list', '--before-id', ids[0]], env);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.contain('before_id needs before');
  });

  it('prints the path as the plain text does in both JSON outputs, snake_case, and show --json without internal fields', async () => {
    const { env, ids } = await prepare();
    const [row] = await list(env, ['--limit', '1']);
    expect(row).to.deep.equal({
      id: ids[0],
      received_at: new Date(SAME.getTime() + 5).toISOString(),
      path: '/api/webhook',
      triggers: ['record'],
      replay_of: null,
    });
    const text = await runCli(['deliveries', 'list', '--limit', '1'], env);
    expect(text.stdout.split('\n')[1].split('\t')).to.deep.equal([row.id, row.received_at, row.path, 'record', '-']);
    const shown = await runCli(['deliveries', 'show', ids[0], '--json'], env);
    expect(shown.code, shown.stderr).to.equal(0);
    expect(JSON.parse(shown.stdout)).to.deep.equal({ ...row, request: { body: { at: row.received_at }, query: {}, headers: {} }, runs: [] });
  });
});
