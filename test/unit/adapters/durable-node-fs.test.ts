import { closeSync, fstatSync, openSync, readdirSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { addFsync, flushFile } from '../../../src/adapters/persistence/pglite/durable-node-fs.js';

type Stream = { nfd?: number; node?: unknown };

describe('DurableNodeFS (flushing the embedded database to the disk)', () => {
  /** Emscripten's NODEFS as the hook sees it: a node is its host path here. */
  const nodefs = () => ({
    FS: { filesystems: { NODEFS: { stream_ops: {} as { fsync?: (stream: Stream) => number }, realPath: (node: unknown) => String(node) } } },
  });
  const openFds = (): number => readdirSync('/proc/self/fd').length;
  let dir: string;
  beforeEach(async () => void (dir = await mkdtemp(join(tmpdir(), 'durable-fs-'))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it("gives Emscripten's NODEFS an fsync that flushes the stream's own file descriptor", () => {
    const module = nodefs();
    const flushed: number[] = [];
    addFsync(module, (fd) => void flushed.push(fd));
    expect(module.FS.filesystems.NODEFS.stream_ops.fsync?.({ nfd: 17 })).to.equal(0);
    expect(flushed).to.deep.equal([17]);
  });

  it('flushes a real file through the system call and reports success', async () => {
    const fd = openSync(join(dir, 'wal'), 'w');
    try {
      writeSync(fd, 'committed');
      const module = nodefs();
      addFsync(module);
      expect(module.FS.filesystems.NODEFS.stream_ops.fsync?.({ nfd: fd })).to.equal(0);
      expect(await readFile(join(dir, 'wal'), 'utf8')).to.equal('committed');
    } finally {
      closeSync(fd);
    }
  });

  it('flushes a directory (NODEFS opens none on the host) by opening it by its path, and closes what it opened', async () => {
    await mkdir(join(dir, 'pg_wal'));
    const module = nodefs();
    const flushed: boolean[] = [];
    addFsync(module, (fd) => void flushed.push(fstatSync(fd).isDirectory()));
    const before = openFds();
    expect(module.FS.filesystems.NODEFS.stream_ops.fsync?.({ node: join(dir, 'pg_wal') })).to.equal(0);
    expect(flushed).to.deep.equal([true]);
    expect(openFds()).to.equal(before);
    // and through the real system call
    addFsync(module);
    expect(module.FS.filesystems.NODEFS.stream_ops.fsync?.({ node: join(dir, 'pg_wal') })).to.equal(0);
    expect(openFds()).to.equal(before);
  });

  it('answers EIO when the system refuses the flush, so that PostgreSQL stops instead of going on as if it were stored', async () => {
    const refuse = () => {
      throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    };
    expect(flushFile({ nfd: 3 }, String, refuse)).to.equal(29); // WASI's EIO
    // a directory: the descriptor it opened is closed even so
    const before = openFds();
    expect(flushFile({ node: dir }, String, refuse)).to.equal(29);
    expect(openFds()).to.equal(before);
    // a directory that cannot be opened
    expect(flushFile({ node: join(dir, 'gone') }, String)).to.equal(29);
  });
});
