import { fsyncSync, fstatSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { expect } from 'chai';
import { DurableNodeFS, durableStartParams } from '../../../src/adapters/persistence/pglite/durable-node-fs.js';
import { emptyPgliteDir } from '../../support/data-dirs.js';

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
});
