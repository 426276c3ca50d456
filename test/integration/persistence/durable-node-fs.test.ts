import { fsyncSync, fstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { expect } from 'chai';
import {
  crashedBefore,
  DurableNodeFS,
  durableStartParams,
  RUN_BEFORE_FLUSH_ALL,
  syncFileSystems,
} from '../../../src/adapters/persistence/pglite/durable-node-fs.js';
import { copyTree, emptyPgliteDir } from '../../support/data-dirs.js';
import { tempDir } from '../../support/gateway-process.js';

describe('DurableNodeFS on a real PGlite (what PostgreSQL asks to flush reaches the disk)', function () {
  this.timeout(60_000);

  it('flushes each commit, and the directories a checkpoint writes names into, each with the system call', async () => {
    // removed once this file has run (tempDir)
    const dataDir = await emptyPgliteDir('durable-fs');
    /** What was flushed: "file" or "directory" per call, each through the real fsync. */
    const flushed: string[] = [];
    const flush = (fd: number) => {
      flushed.push(fstatSync(fd).isDirectory() ? 'directory' : 'file');
      fsyncSync(fd);
    };
    const db = await PGlite.create({ dataDir, fs: new DurableNodeFS(dataDir, flush), startParams: durableStartParams() });
    try {
      await db.exec('create table item (id int primary key)');
      flushed.length = 0;
      for (let id = 1; id <= 5; id++) await db.query('insert into item (id) values ($1)', [id]);
      expect(flushed, 'one flush of the WAL per commit').to.deep.equal(['file', 'file', 'file', 'file', 'file']);
      flushed.length = 0;
      await db.exec('checkpoint');
      expect(flushed).to.include('file');
      expect(flushed, 'a checkpoint flushes directories too (pg_logical, pg_xact, …)').to.include('directory');
    } finally {
      await db.close();
    }
  });

  /** A data directory as a process killed while it ran leaves it: the files as they are, never closed, with a few rows committed. */
  const crashedDirectory = async (label: string): Promise<string> => {
    const dataDir = await emptyPgliteDir(label);
    const db = await PGlite.create({ dataDir, fs: new DurableNodeFS(dataDir), startParams: durableStartParams() });
    const crashed = join(await tempDir(`${label}-copy`), 'pglite');
    try {
      await db.exec('create table item (id int primary key)');
      for (let id = 1; id <= 3; id++) await db.query('insert into item (id) values ($1)', [id]);
      await copyTree(dataDir, crashed);
    } finally {
      await db.close();
    }
    return crashed;
  };

  it('after a crash, starts with the whole disk flushed at once (syncfs) instead of each file, keeps what was committed, then flushes each commit', async () => {
    const crashed = await crashedDirectory('durable-crash');
    expect(crashedBefore(crashed), 'the control file says the database was not shut down').to.equal(true);
    /** Each flush: the file, relative to the data directory, then the real system call. */
    const flushed: string[] = [];
    const flush = (fd: number) => {
      flushed.push(readlinkSync(`/proc/self/fd/${fd}`).slice(crashed.length + 1));
      fsyncSync(fd);
    };
    let wholeDisk = 0;
    const flushAll = syncFileSystems(crashed);
    const recovered = await PGlite.create({
      dataDir: crashed,
      fs: new DurableNodeFS(crashed, flush, () => (wholeDisk++, flushAll())),
      startParams: durableStartParams(),
    });
    try {
      expect(wholeDisk, 'the pass over every file, and the recovery checkpoint').to.be.within(1, 3);
      // template1 (base/1): nothing writes to it at a recovery, and PostgreSQL asks to flush each of
      // its 300 files: the run began there or before it, so few are flushed one by one
      expect(flushed.filter((file) => file.startsWith('base/1/')).length).to.be.at.most(RUN_BEFORE_FLUSH_ALL);
      expect(flushed.length, 'file by file at the start').to.be.lessThan(100);
      expect((await recovered.query<{ id: number }>('select id from item order by id')).rows.map((row) => row.id)).to.deep.equal([1, 2, 3]);
      flushed.length = 0;
      await recovered.query('insert into item (id) values (4)');
      expect(flushed, "the commit's log flushed before it was answered").to.have.length(1);
      expect(flushed[0]).to.match(/^pg_wal\//);
      expect(wholeDisk, 'never once started').to.be.within(1, 3);
    } finally {
      await recovered.close();
    }
    expect(crashedBefore(crashed), 'closed cleanly').to.equal(false);
  });

  it('after a crash where the whole disk cannot be flushed, starts with each file of the data directory flushed once, and keeps what was committed', async () => {
    const crashed = await crashedDirectory('durable-crash-file-by-file');
    const flushed: string[] = [];
    const flush = (fd: number) => {
      flushed.push(readlinkSync(`/proc/self/fd/${fd}`).slice(crashed.length + 1));
      fsyncSync(fd);
    };
    const recovered = await PGlite.create({ dataDir: crashed, fs: new DurableNodeFS(crashed, flush, () => false), startParams: durableStartParams() });
    try {
      // template1 (base/1): nothing writes to it at a recovery, and PostgreSQL asks to flush each
      // of its files twice (a pass that starts the writing, then the flushes proper).
      const template1 = flushed.filter((file) => file.startsWith('base/1/'));
      expect(template1.length, 'PostgreSQL flushes the whole data directory after a crash').to.be.greaterThan(200);
      expect(template1.length, 'each file once').to.equal(new Set(template1).size);
      expect((await recovered.query<{ id: number }>('select id from item order by id')).rows.map((row) => row.id)).to.deep.equal([1, 2, 3]);
    } finally {
      await recovered.close();
    }
  });
});
