import { closeSync, fstatSync, fsyncSync, openSync, readdirSync, readlinkSync, writeFileSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  addFsync,
  crashedBefore,
  flushFile,
  RUN_BEFORE_FLUSH_ALL,
  StartFlushes,
  syncFileSystems,
  syncfsReportsErrors,
} from '../../../src/adapters/persistence/pglite/durable-node-fs.js';

type Stream = { nfd?: number; node?: unknown };

describe('DurableNodeFS (flushing the embedded database to the disk)', () => {
  /** Emscripten's NODEFS as the hook sees it: a node is its host path here. */
  const nodefs = () => ({
    FS: {
      filesystems: {
        NODEFS: {
          stream_ops: {} as { fsync?: (stream: Stream) => number; write?: (...args: never[]) => unknown },
          node_ops: {} as Record<string, ((...args: never[]) => unknown) | undefined>,
          realPath: (node: unknown) => String(node),
        },
      },
    },
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

  describe('while the database starts (StartFlushes)', () => {
    /** What happened, in order: "flush <file>" (through the real system call) or "<operation>". */
    let events: string[];
    const recordFlush = (fd: number): void => {
      events.push(`flush ${readlinkSync(`/proc/self/fd/${fd}`).slice(dir.length + 1)}`);
      fsyncSync(fd);
    };
    /** NODEFS with the hook and a start under way, its operations recording their name; `flushAll` for a start after a crash. */
    const starting = (flush: (fd: number) => void = recordFlush, flushAll?: () => boolean) => {
      const module = nodefs();
      const { stream_ops, node_ops } = module.FS.filesystems.NODEFS;
      stream_ops.write = () => void events.push('write');
      for (const name of ['mknod', 'rename', 'unlink', 'rmdir', 'symlink', 'setattr', 'lookup']) node_ops[name] = () => void events.push(name);
      const start = new StartFlushes(flushAll);
      addFsync(module, flush, start);
      /** PostgreSQL's fsync of the file `name` through a descriptor of its own. */
      const fsync = (name: string) => {
        const fd = openSync(join(dir, name), 'r');
        try {
          return stream_ops.fsync?.({ nfd: fd, node: join(dir, name) });
        } finally {
          closeSync(fd);
        }
      };
      return { fsync, stream_ops, node_ops, start };
    };
    /** Files f0, f1, … beside a, b and c. */
    const many = Array.from({ length: 20 }, (_, i) => `f${i}`);
    beforeEach(() => {
      events = [];
      for (const name of ['a', 'b', 'c', ...many]) writeFileSync(join(dir, name), name);
    });

    it('after a crash, flushes a long run of files as the whole disk once, after its first few one by one, and answers the rest of the run at once', () => {
      const fs = starting(recordFlush, () => (events.push('flush all'), true));
      for (const name of many) expect(fs.fsync(name)).to.equal(0);
      const oneByOne = many.slice(0, RUN_BEFORE_FLUSH_ALL).map((name) => `flush ${name}`);
      expect(events).to.deep.equal([...oneByOne, 'flush all']);
      // what the crashed process left in the system's cache is on the disk: nothing else is flushed, not even a file not yet asked
      fs.fsync('a');
      expect(events).to.deep.equal([...oneByOne, 'flush all']);
    });

    it('after a crash, flushes file by file again once the disk changed, and as the whole disk only after another long run', () => {
      const fs = starting(recordFlush, () => (events.push('flush all'), true));
      for (const name of many) fs.fsync(name);
      events = [];
      fs.stream_ops.write?.();
      for (const name of ['a', 'b']) fs.fsync(name);
      expect(events, 'a short run after a write: each file').to.deep.equal(['write', 'flush a', 'flush b']);
      events = [];
      for (const name of many) fs.fsync(name);
      expect(events, 'a long run: its first files, then the disk').to.deep.equal([
        ...many.slice(0, RUN_BEFORE_FLUSH_ALL - 2).map((name) => `flush ${name}`),
        'flush all',
      ]);
    });

    it('never flushes the whole disk for short runs, nor at a start after a clean stop (no flushAll)', () => {
      let asked = 0;
      const fs = starting(recordFlush, () => (asked++, true));
      for (let round = 0; round < 5; round++) {
        fs.fsync('a');
        fs.fsync('b');
        fs.stream_ops.write?.();
      }
      expect(asked).to.equal(0);
      const clean = starting();
      for (const name of many) clean.fsync(name);
      expect(events.filter((event) => event.startsWith('flush f'))).to.have.length(many.length);
    });

    it('flushes file by file for the rest of the start when flushing the whole disk failed, and does not try it again', () => {
      let asked = 0;
      const fs = starting(recordFlush, () => (asked++, false));
      for (const name of many) expect(fs.fsync(name)).to.equal(0);
      fs.stream_ops.write?.();
      for (const name of many) fs.fsync(name);
      expect(asked).to.equal(1);
      expect(events.filter((event) => event.startsWith('flush f'))).to.have.length(2 * many.length);
    });

    it('never flushes the whole disk once the database has started', () => {
      let asked = 0;
      const fs = starting(recordFlush, () => (asked++, true));
      fs.start.end();
      for (const name of many) fs.fsync(name);
      expect(asked).to.equal(0);
      expect(events).to.have.length(many.length);
    });

    it('flushes each file when asked, and a file asked again with nothing changed since only once', () => {
      const fs = starting();
      for (const name of ['a', 'b', 'a', 'c', 'b']) expect(fs.fsync(name)).to.equal(0);
      expect(events).to.deep.equal(['flush a', 'flush b', 'flush c']);
      fs.node_ops.lookup?.();
      fs.fsync('a');
      expect(events, 'a read changes nothing').to.deep.equal(['flush a', 'flush b', 'flush c', 'lookup']);
    });

    it('flushes every file again once the disk changed: a write, a new file or directory, a rename, a removal, a link, a truncation', () => {
      const fs = starting();
      const changes = [
        ['write', () => fs.stream_ops.write?.()] as const,
        ...['mknod', 'rename', 'unlink', 'rmdir', 'symlink', 'setattr'].map((name) => [name, () => fs.node_ops[name]?.()] as const),
      ];
      for (const [name, change] of changes) {
        fs.fsync('a');
        fs.fsync('b');
        events = [];
        change();
        fs.fsync('b');
        expect(events, name).to.deep.equal([name, 'flush b']);
      }
    });

    it('flushes every file asked once the database has started, as a commit needs', () => {
      const fs = starting();
      fs.fsync('a');
      fs.start.end();
      events = [];
      fs.fsync('a');
      fs.fsync('a');
      expect(events).to.deep.equal(['flush a', 'flush a']);
    });

    it('answers EIO each time a flush is refused, and never counts it as done', () => {
      let refuse = true;
      const fs = starting((fd) => {
        if (refuse) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
        recordFlush(fd);
      });
      expect(fs.fsync('a')).to.equal(29);
      expect(fs.fsync('a')).to.equal(29);
      refuse = false;
      expect(fs.fsync('a')).to.equal(0);
      expect(events).to.deep.equal(['flush a']);
    });
  });

  describe('a start after a crash (crashedBefore, syncFileSystems)', () => {
    /** A control file whose `state` (the int32 at byte 16) is `state`. */
    const controlFile = async (state: number, bytes = 296): Promise<void> => {
      await mkdir(join(dir, 'global'), { recursive: true });
      const file = Buffer.alloc(bytes);
      if (bytes >= 20) file.writeInt32LE(state, 16);
      writeFileSync(join(dir, 'global', 'pg_control'), file);
    };

    it('tells a data directory not shut down cleanly (in production, starting, in crash recovery…) from one shut down', async () => {
      for (const [state, crashed] of [
        [1, false], // shut down
        [2, false], // shut down in recovery
        [0, true], // starting
        [3, true], // shutting down
        [4, true], // in crash recovery
        [6, true], // in production: killed
      ] as const) {
        await controlFile(state);
        expect(crashedBefore(dir), `state ${state}`).to.equal(crashed);
      }
    });

    it('takes a directory without a control file (a new database) or with a short one as not crashed', async () => {
      expect(crashedBefore(dir)).to.equal(false);
      expect(crashedBefore(join(dir, 'missing'))).to.equal(false);
      await controlFile(6, 12);
      expect(crashedBefore(dir)).to.equal(false);
    });

    it('flushes the file systems of a data directory with syncfs on Linux 5.8 or later, and says so; false for one that does not exist, or elsewhere', async () => {
      await mkdir(join(dir, 'pg_wal'));
      await mkdir(join(dir, 'pg_tblspc'));
      expect(syncFileSystems(dir, '6.1.0-13-amd64')()).to.equal(process.platform === 'linux');
      expect(syncFileSystems(join(dir, 'missing'), '6.1.0')()).to.equal(false);
    });

    it('does not flush the whole disk where syncfs reports no failed write-back (Linux before 5.8): the files are flushed one by one', async () => {
      await mkdir(join(dir, 'pg_wal'));
      await mkdir(join(dir, 'pg_tblspc'));
      for (const release of ['4.18.0-553.el8_10.x86_64', '4.19.0-27-amd64', '5.4.0-200-generic', '5.7.19', 'unknown'])
        expect(syncFileSystems(dir, release)(), release).to.equal(false);
      for (const [release, reports] of [
        ['5.8.0', true],
        ['5.10.0-33-amd64', true],
        ['6.18.44-fc-v782', true],
        ['10.0', true],
        ['5.7.0', false],
        ['4.20', false],
        ['', false],
      ] as const)
        expect(syncfsReportsErrors(release), release).to.equal(reports);
    });
  });
});
