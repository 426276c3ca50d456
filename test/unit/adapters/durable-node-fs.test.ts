import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { addFsync, flushFile } from '../../../src/adapters/persistence/pglite/durable-node-fs.js';

describe('DurableNodeFS (flushing the embedded database to the disk)', () => {
  const nodefs = () => ({ FS: { filesystems: { NODEFS: { stream_ops: {} as { fsync?: (stream: { nfd?: number }) => number } } } } });

  it("gives Emscripten's NODEFS an fsync that flushes the stream's own file descriptor", () => {
    const module = nodefs();
    const flushed: number[] = [];
    addFsync(module, (fd) => void flushed.push(fd));
    expect(module.FS.filesystems.NODEFS.stream_ops.fsync?.({ nfd: 17 })).to.equal(0);
    expect(flushed).to.deep.equal([17]);
  });

  it('flushes a real file through the system call and reports success', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'durable-fs-'));
    const fd = openSync(join(dir, 'wal'), 'w');
    try {
      writeSync(fd, 'committed');
      const module = nodefs();
      addFsync(module);
      expect(module.FS.filesystems.NODEFS.stream_ops.fsync?.({ nfd: fd })).to.equal(0);
      expect(await readFile(join(dir, 'wal'), 'utf8')).to.equal('committed');
    } finally {
      closeSync(fd);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('answers EIO when the system refuses the flush, so that PostgreSQL stops instead of going on as if it were stored', () => {
    const refused = flushFile({ nfd: 3 }, () => {
      throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    });
    expect(refused).to.equal(29); // WASI's EIO
  });

  it('has nothing to flush for a stream without a file (a directory)', () => {
    let called = false;
    expect(flushFile({}, () => void (called = true))).to.equal(0);
    expect(called).to.equal(false);
  });
});
