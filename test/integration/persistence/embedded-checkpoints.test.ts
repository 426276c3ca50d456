import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { closeEngine, openEngine, SERVICE_SETTINGS } from '../../../src/adapters/persistence/open-engine.js';
import { type CheckpointPolicy, checkpointIfDue } from '../../../src/adapters/persistence/pglite/checkpoints.js';
import { PgliteThread, type EmbeddedPglite } from '../../../src/adapters/persistence/pglite/pglite-thread.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { emptyPgliteDir, openPglite } from '../../support/data-dirs.js';

/*
 * PGlite is PostgreSQL as one single-user process, with no checkpointer: left alone it checkpoints
 * only at close, so a long-running service's write-ahead log grew by everything ever written and a
 * crash replayed all of it. The service checkpoints it itself (checkpoints.ts).
 */
describe('embedded database checkpoints: the write-ahead log is recycled while the service runs', function () {
  this.timeout(60_000);
  let dir: string;
  let db: EmbeddedPglite;

  const WAL_SEGMENT = /^[0-9A-F]{24}$/;
  const segments = async (): Promise<string[]> => (await readdir(join(dir, 'pg_wal'))).filter((name) => WAL_SEGMENT.test(name)).sort();
  const redo = async (): Promise<string> => (await db.query<{ redo: string }>('select redo_lsn::text as redo from pg_control_checkpoint()')).rows[0].redo;
  /**
   * About `megabytes` MB of log: rows of 1 kB, under the size from which PostgreSQL compresses a
   * value (~2 kB), so each is logged whole (a third of the CPU of 32 distinct digests per row).
   */
  const write = async (megabytes: number): Promise<void> => {
    await db.query(`insert into filler (body) select repeat(md5(random()::text || g::text), 32) from generate_series(1, ${megabytes * 1000}) g`);
  };
  const policy = (overrides: Partial<CheckpointPolicy>): CheckpointPolicy => ({
    checkEveryMs: 60_000,
    walBytes: 4 * 1024 * 1024,
    maxAgeMs: 3_600_000,
    ...overrides,
  });

  beforeEach(async () => {
    dir = await emptyPgliteDir('checkpoints');
    db = await openPglite(dir);
    await db.exec('create table filler (id serial primary key, body text not null)');
    await db.exec('CHECKPOINT');
  });
  afterEach(async () => {
    await db.close();
  });

  it('left alone, checkpoints never: 20 MB written keep every segment and the redo point where it was', async () => {
    const [oldest] = await segments();
    const before = await redo();
    await write(20);
    expect(await redo()).to.equal(before);
    expect(await segments()).to.include(oldest);
    expect((await segments()).length).to.be.greaterThan(1);
  });

  it('checkpoints once the log has grown by walBytes, and PostgreSQL then recycles the old segments', async () => {
    const [oldest] = await segments();
    const before = await redo();
    await write(20);
    expect(await checkpointIfDue(db, policy({ walBytes: 16 * 1024 * 1024 }))).to.equal(true);
    expect(await redo()).to.not.equal(before);
    expect(await segments()).to.not.include(oldest);
  });

  it('does not checkpoint below walBytes while the last checkpoint is young, nor when nothing was written since it, however old', async () => {
    await write(1);
    expect(await checkpointIfDue(db, policy({}))).to.equal(false);
    await db.exec('CHECKPOINT');
    const after = await redo();
    expect(await checkpointIfDue(db, policy({ maxAgeMs: 0 }))).to.equal(false);
    expect(await redo()).to.equal(after);
  });

  it('checkpoints a little log once the last checkpoint is older than maxAgeMs', async () => {
    await write(1);
    const before = await redo();
    expect(await checkpointIfDue(db, policy({ maxAgeMs: 0 }))).to.equal(true);
    expect(await redo()).to.not.equal(before);
  });

  it('a thread given a policy checks on its own, every checkEveryMs, and checkpoints once the log is due', async () => {
    await db.close();
    const errors: Error[] = [];
    let checkpointed!: () => void;
    const made = new Promise<void>((resolve) => (checkpointed = resolve));
    db = await PgliteThread.open(dir, undefined, SERVICE_SETTINGS, {
      ...policy({ checkEveryMs: 20, walBytes: 2 * 1024 * 1024 }),
      onError: (error) => errors.push(error),
      onCheckpoint: () => checkpointed(),
    });
    const before = await redo();
    await write(4);
    await made; // the thread reports the checkpoint it made (mocha's timeout bounds the wait)
    expect(await redo()).to.not.equal(before);
    expect(errors).to.deep.equal([]);
  });

  it("the service's embedded database checkpoints every 64 MB of log or 5 minutes; a CLI command's, open for a moment, does not", async () => {
    const open = async (shortLived: boolean): Promise<CheckpointPolicy | undefined> => {
      const engine = await openEngine({
        databaseUrl: undefined,
        dataDir: dirname(await emptyPgliteDir('checkpoints-engine')),
        logger: new RecordingLogger(),
        shortLived,
      });
      try {
        if (engine.engine !== 'pglite') throw new Error('expected the embedded engine');
        return engine.pglite instanceof PgliteThread ? engine.pglite.checkpoints : undefined;
      } finally {
        await closeEngine(engine);
      }
    };
    expect(await open(false)).to.deep.equal({ checkEveryMs: 5_000, walBytes: 64 * 1024 * 1024, maxAgeMs: 300_000 });
    expect(await open(true)).to.equal(undefined);
  });
});
