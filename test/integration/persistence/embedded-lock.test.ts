import { expect } from 'chai';
import { cp, readdir, readFile, realpath, stat, symlink, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  EmbeddedDatabaseBusy,
  EmbeddedLock,
  type EmbeddedLockLost,
  type EmbeddedLockOptions,
  type Every,
  LEASE_STALE_MS,
  type LockIdentity,
} from '../../../src/adapters/persistence/embedded-lock.js';
import { tempDir } from '../../support/gateway-process.js';

/*
 * Several processes starting on one data directory, stood in by locks of distinct pids in this
 * process on the real file system: their file operations interleave as separate processes' do.
 * Each stands-in process is on host `here`, in boot `boot-1` and pid namespace `pid:[1]` unless
 * told otherwise, and started at `T<pid>`.
 */
const DEAD = 999_999;
const HOUR = 3_600_000;
const machine = (facts: Partial<LockIdentity> & { readonly pid: number }): LockIdentity => ({
  isAlive: (pid) => pid !== DEAD,
  host: 'here',
  boot: 'boot-1',
  pidns: 'pid:[1]',
  bootedAt: Date.now() - HOUR,
  startOf: (pid) => `T${pid}`,
  ...facts,
});
const processes = (dataDir: string, count: number): EmbeddedLock[] =>
  Array.from({ length: count }, (_, index) => new EmbeddedLock(dataDir, machine({ pid: 1000 + index })));

/** A lock that never renews its lease by itself (its file's mtime is the test's to set). */
const unrenewed = (dataDir: string, facts: Partial<LockIdentity> & { readonly pid: number }): EmbeddedLock =>
  new EmbeddedLock(dataDir, machine(facts), { every: () => () => undefined });

/**
 * A lock whose renewals the test runs (`renew`, awaited), recording the losses it reports.
 * Readers given a short `renewEveryMs` watch a lease that does not look fresh for two of it.
 */
const driven = (dataDir: string, facts: Partial<LockIdentity> & { readonly pid: number }, options: EmbeddedLockOptions = {}) => {
  const losses: EmbeddedLockLost[] = [];
  const renewal = { task: undefined as (() => Promise<void>) | undefined, stopped: false };
  const every: Every = (task) => {
    renewal.task = task;
    renewal.stopped = false;
    return () => {
      renewal.stopped = true;
    };
  };
  const lock = new EmbeddedLock(dataDir, machine(facts), { ...options, every, onLost: (error) => losses.push(error) });
  const renew = (): Promise<void> => (renewal.task ?? expect.fail('no renewal scheduled'))();
  return { lock, losses, renewal, renew };
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const containerA = { pid: 1, host: 'container-a', pidns: 'pid:[A]' } as const;
const containerB = { pid: 1, host: 'container-b', pidns: 'pid:[B]' } as const;

const lockFile = (dataDir: string): string => join(dataDir, 'embedded.pid');
const pidIn = async (dataDir: string): Promise<string> => (await readFile(lockFile(dataDir), 'utf8')).split('\n')[0];
const whereIn = async (dataDir: string): Promise<Record<string, unknown>> => JSON.parse((await readFile(lockFile(dataDir), 'utf8')).split('\n')[1]);
/** What an EmbeddedDatabaseBusy message ends with: what to do. */
const WHAT_TO_DO = ': stop that process first, or give this one another DATA_DIR (one process at a time opens an embedded database)';

const ageBy = async (dataDir: string, ms: number): Promise<void> => {
  const then = new Date(Date.now() - ms);
  await utimes(lockFile(dataDir), then, then);
};
const busy = async (lock: EmbeddedLock): Promise<EmbeddedDatabaseBusy> => {
  const error = await lock.acquire().then(
    () => expect.fail('acquired a lock held by a live process'),
    (error: unknown) => error,
  );
  expect(error, String(error)).to.be.instanceOf(EmbeddedDatabaseBusy);
  return error as EmbeddedDatabaseBusy;
};

/** Which of `locks` got the lock when all try at once; the others must have been told who holds it. */
const acquireAtOnce = async (locks: EmbeddedLock[]): Promise<number[]> => {
  const outcomes = await Promise.allSettled(locks.map((lock) => lock.acquire()));
  const winners: number[] = [];
  outcomes.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') winners.push(index);
    else expect(outcome.reason, String(outcome.reason)).to.be.instanceOf(EmbeddedDatabaseBusy);
  });
  return winners;
};

describe('the embedded database lock', () => {
  it('goes to exactly one of several processes starting at once, the others told its pid', async () => {
    for (let round = 0; round < 20; round++) {
      const dataDir = await tempDir('lock');
      const locks = processes(dataDir, 6);
      const winners = await acquireAtOnce(locks);
      expect(winners, `round ${round}`).to.have.length(1);
      expect(await pidIn(dataDir)).to.equal(String(1000 + winners[0]));
      const loser = locks[(winners[0] + 1) % locks.length];
      expect(await loser.holder()).to.equal(1000 + winners[0]);
      await locks[winners[0]].release();
    }
  });

  it("goes to exactly one of several processes taking a dead process's lock over at once", async () => {
    for (let round = 0; round < 20; round++) {
      const dataDir = await tempDir('lock-stale');
      await writeFile(lockFile(dataDir), String(DEAD));
      const locks = processes(dataDir, 6);
      const winners = await acquireAtOnce(locks);
      expect(winners, `round ${round}`).to.have.length(1);
      expect(await pidIn(dataDir)).to.equal(String(1000 + winners[0]));
      await locks[winners[0]].release();
    }
  });

  it('takes over a lock file left empty or unreadable, and leaves no file of its own behind', async () => {
    const dataDir = await tempDir('lock-empty');
    await writeFile(lockFile(dataDir), '');
    const [lock] = processes(dataDir, 1);
    await lock.acquire();
    expect(await pidIn(dataDir)).to.equal('1000');
    await lock.release();
    expect(await readdir(dataDir)).to.deep.equal([]);
  });

  it("takes a dead process's lock over also when a process died holding the takeover guard (once the guard is stale)", async () => {
    const dataDir = await tempDir('lock-guard');
    await writeFile(lockFile(dataDir), String(DEAD));
    // A guard 7.5 s old: stale 2.5 s from now (at 10 s), later than a start used to try.
    const guard = join(dataDir, 'embedded.pid.takeover');
    await writeFile(guard, String(DEAD));
    const old = new Date(Date.now() - 7_500);
    await utimes(guard, old, old);
    const [lock] = processes(dataDir, 1);
    await lock.acquire();
    expect(await pidIn(dataDir)).to.equal('1000');
    await lock.release();
  });

  it("releases only its own lock, never a newer holder's", async () => {
    const dataDir = await tempDir('lock-release');
    const [first, second] = processes(dataDir, 2);
    await first.acquire();
    await writeFile(lockFile(dataDir), '1001');
    await first.release();
    expect(await second.holder()).to.equal(null); // its own pid: no other holder
    expect(await first.holder()).to.equal(1001);
  });

  it('records its pid on line 1, where that pid lives and when its process started on line 2', async () => {
    const dataDir = await tempDir('lock-format');
    const [lock] = processes(dataDir, 1);
    await lock.acquire();
    expect(await pidIn(dataDir)).to.equal('1000');
    expect(await whereIn(dataDir)).to.deep.include({ host: 'here', boot: 'boot-1', pidns: 'pid:[1]', start: 'T1000' });
    const { dev, ino } = await stat(dataDir);
    expect((await whereIn(dataDir)).dir, 'the directory it locks').to.deep.equal({ path: await realpath(dataDir), id: `${dev}:${ino}` });
    expect((await whereIn(dataDir)).lock, 'a nonce of this acquisition').to.match(/^[0-9a-f-]{36}$/);
    await lock.release();
  });

  describe('held from another container, pod or machine (its pid means nothing here)', () => {
    // Both are pid 1 in containers of their own, on one volume: the pid alone looks like our own stale lock.
    it('is busy while the lease is fresh, naming the host and the lock file — also with our own pid or a pid dead here', async () => {
      const cases: Array<[string, Partial<LockIdentity>]> = [
        ['another container, same pid', { host: 'container-b', pidns: 'pid:[B]' }],
        ['same host name, another pid namespace', { pidns: 'pid:[B]' }],
        ['another machine', { host: 'machine-b', boot: 'boot-2', pidns: 'pid:[B]' }],
        ['a pid not running here', { host: 'container-b', pidns: 'pid:[B]', isAlive: () => false }],
      ];
      for (const [name, theirs] of cases) {
        const dataDir = await tempDir('lock-foreign');
        const holder = unrenewed(dataDir, { pid: 1, host: 'container-a', pidns: 'pid:[A]' });
        await holder.acquire();
        const second = unrenewed(dataDir, { pid: 1, ...theirs });
        const error = await busy(second);
        expect(error.message, name).to.equal(
          `The embedded database in ${dataDir} is in use by process 1 on host container-a (lock file ${lockFile(dataDir)}; it is renewed while that process runs): stop that process first, or give this one another DATA_DIR (one process at a time opens an embedded database)`,
        );
        expect(error.host, name).to.equal('container-a');
        expect(await second.holder(), name).to.equal(1);
        expect(await pidIn(dataDir), name).to.equal('1');
        expect((await whereIn(dataDir)).host, name).to.equal('container-a');
        await holder.release();
      }
    });

    it('is taken over once the lease is older than the stale bound', async () => {
      const dataDir = await tempDir('lock-lease');
      const holder = unrenewed(dataDir, { pid: 1, host: 'container-a', pidns: 'pid:[A]' });
      await holder.acquire();
      await ageBy(dataDir, LEASE_STALE_MS + 5_000);
      // Watched for two renewal periods (40 ms here) before it is taken over.
      const second = new EmbeddedLock(dataDir, machine(containerB), { renewEveryMs: 20, every: () => () => undefined });
      expect(await second.holder()).to.equal(null);
      await second.acquire();
      expect((await whereIn(dataDir)).host).to.equal('container-b');
      await holder.release(); // the old holder's release leaves the new holder's file alone
      expect((await whereIn(dataDir)).host).to.equal('container-b');
      await second.release();
      expect(await readdir(dataDir)).to.deep.equal([]);
    });

    it('is taken over after this host rebooted since the lease was last renewed; not when the lease is younger than the boot', async () => {
      const dataDir = await tempDir('lock-reboot');
      const before = unrenewed(dataDir, { pid: 1000, boot: 'boot-0' });
      await before.acquire();
      // Renewed after this boot: another machine of the same name holds it.
      const after = unrenewed(dataDir, { pid: 2000, boot: 'boot-1', bootedAt: Date.now() - 60_000 });
      expect((await busy(after)).host).to.equal('here');
      // Last renewed 2 min ago, before this boot 1 min ago: it died with the boot.
      await ageBy(dataDir, 120_000);
      await after.acquire();
      expect(await pidIn(dataDir)).to.equal('2000');
      await after.release();
    });

    it('renews its lease while it holds it, and stops when released', async () => {
      const dataDir = await tempDir('lock-renew');
      const holder = new EmbeddedLock(dataDir, machine({ pid: 1 }), { renewEveryMs: 20 });
      await holder.acquire();
      await ageBy(dataDir, LEASE_STALE_MS + 5_000);
      const giveUpAt = Date.now() + 10_000;
      while (Date.now() - (await stat(lockFile(dataDir))).mtimeMs > LEASE_STALE_MS) {
        expect(Date.now(), 'the lease was not renewed').to.be.below(giveUpAt);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await holder.release();

      // The renewal as scheduled: started on acquire, stopped on release.
      const renewals: Array<{ renew: () => void; ms: number; stopped: boolean }> = [];
      const every: Every = (renew, ms) => {
        const renewal = { renew, ms, stopped: false };
        renewals.push(renewal);
        return () => {
          renewal.stopped = true;
        };
      };
      const lock = new EmbeddedLock(dataDir, machine({ pid: 1 }), { every });
      await lock.acquire();
      expect(renewals.map(({ ms, stopped }) => ({ ms, stopped }))).to.deep.equal([{ ms: 5_000, stopped: false }]);
      await lock.release();
      expect(renewals.map(({ stopped }) => stopped)).to.deep.equal([true]);
    });
  });

  describe('a holder that lost its lock file (it was frozen or cut off longer than its lease)', () => {
    it('reports the loss once, at its next renewal, when its file was removed', async () => {
      const dataDir = await tempDir('lock-lost-removed');
      const holder = driven(dataDir, containerA);
      await holder.lock.acquire();
      await ageBy(dataDir, 10_000);
      await holder.renew(); // still its own: renewed, nothing reported
      expect(Date.now() - (await stat(lockFile(dataDir))).mtimeMs).to.be.below(5_000);
      expect(holder.losses).to.deep.equal([]);

      await unlink(lockFile(dataDir));
      await holder.renew();
      expect(holder.losses.map(({ how, name }) => ({ how, name }))).to.deep.equal([{ how: 'removed', name: 'EmbeddedLockLost' }]);
      expect(holder.losses[0].message).to.equal(
        `The embedded database's lock in ${dataDir} was removed (lock file ${lockFile(dataDir)}): this process no longer holds it`,
      );
      expect(holder.renewal.stopped, 'renewal stopped').to.equal(true);
      await holder.renew(); // a tick already scheduled: nothing more
      expect(holder.losses).to.have.length(1);
      await holder.lock.release();
      expect(holder.losses).to.have.length(1);
      expect(await readdir(dataDir)).to.deep.equal([]);
    });

    it('reports the loss once when another process took its file over, and leaves that file alone', async () => {
      const dataDir = await tempDir('lock-lost-replaced');
      const holder = driven(dataDir, containerA);
      await holder.lock.acquire();
      await unlink(lockFile(dataDir));
      const taker = unrenewed(dataDir, containerB);
      await taker.acquire();
      await holder.renew();
      expect(holder.losses.map(({ how }) => how)).to.deep.equal(['replaced']);
      expect(holder.losses[0].message).to.equal(
        `The embedded database's lock in ${dataDir} was taken over by another process (lock file ${lockFile(dataDir)}): this process no longer holds it`,
      );
      await holder.renew();
      await holder.lock.release(); // same pid as the taker's: still not removed
      expect(holder.losses).to.have.length(1);
      expect((await whereIn(dataDir)).host).to.equal('container-b');
      await taker.release();
      expect(await readdir(dataDir)).to.deep.equal([]);
    });

    it('reports nothing on release: renewal stops first, and a renewal under way says nothing', async () => {
      const dataDir = await tempDir('lock-lost-release');
      const holder = driven(dataDir, containerA);
      await holder.lock.acquire();
      // A renewal under way when release begins (its file even gone: it would be a loss while held).
      await unlink(lockFile(dataDir));
      const renewing = holder.renew();
      await holder.lock.release();
      await renewing;
      expect(holder.renewal.stopped, 'renewal stopped').to.equal(true);
      await holder.renew(); // a tick already scheduled
      expect(holder.losses).to.deep.equal([]);
      expect(await readdir(dataDir)).to.deep.equal([]);

      // Released normally, with real renewals running often.
      const losses: EmbeddedLockLost[] = [];
      const often = new EmbeddedLock(dataDir, machine(containerA), { renewEveryMs: 1, onLost: (error) => losses.push(error) });
      await often.acquire();
      await ageBy(dataDir, 10_000);
      while (Date.now() - (await stat(lockFile(dataDir))).mtimeMs > 5_000) await sleep(5); // renewals ran
      await often.release();
      expect(losses).to.deep.equal([]);
      expect(await readdir(dataDir)).to.deep.equal([]);
    });

    it('races a takeover of its stale lease with a renewal: exactly one holds the lock, the other is told', async () => {
      // The renewal starts while the taker, having judged the lease stale, holds the takeover guard.
      const dataDir = await tempDir('lock-race');
      const holder = driven(dataDir, containerA);
      await holder.lock.acquire();
      await ageBy(dataDir, LEASE_STALE_MS + 5_000);
      let renewing: Promise<void> | undefined;
      const taker = new EmbeddedLock(dataDir, machine(containerB), {
        renewEveryMs: 20,
        every: () => () => undefined,
        beforeTakeover: async () => {
          renewing = holder.renew();
          // Give the renewal its chance to reach the guard (it waits there: it cannot complete
          // meanwhile). Nothing is asserted on the time: should the renewal come only after the
          // takeover, it finds the file not its own, and the outcome asserted below is the same.
          await Promise.race([renewing, sleep(200)]);
        },
      });
      await taker.acquire();
      await renewing;
      expect((await whereIn(dataDir)).host).to.equal('container-b');
      expect(holder.losses, 'the old holder is told').to.have.length(1);
      await holder.lock.release();
      await taker.release();
      expect(await readdir(dataDir)).to.deep.equal([]);

      // The same with the guard cleared as stale under the taker (frozen while holding it for
      // longer than the guard's bound): the renewal completes first; the taker sees it and backs off.
      await holder.lock.acquire();
      const ino = (await stat(lockFile(dataDir))).ino;
      await ageBy(dataDir, LEASE_STALE_MS + 5_000);
      const frozen = new EmbeddedLock(dataDir, machine(containerB), {
        renewEveryMs: 20,
        every: () => () => undefined,
        beforeTakeover: async () => {
          const old = new Date(Date.now() - 60_000);
          await utimes(join(dataDir, 'embedded.pid.takeover'), old, old);
          await holder.renew();
        },
      });
      expect((await busy(frozen)).host).to.equal('container-a');
      expect(holder.losses, 'the holder keeps the lock').to.have.length(1);
      expect((await stat(lockFile(dataDir))).ino).to.equal(ino);
      await holder.renew();
      expect(holder.losses).to.have.length(1);
      await holder.lock.release();
      expect(await readdir(dataDir)).to.deep.equal([]);
    });
  });

  describe("held from a machine whose clock is far from this one's", () => {
    for (const [name, offset] of [
      ['an hour ahead', HOUR],
      ['an hour behind', -HOUR],
    ] as const) {
      it(`is not taken over while it renews its lease, and is once it stops (${name})`, async () => {
        const dataDir = await tempDir('lock-skew');
        const holder = driven(dataDir, containerA, { clock: () => Date.now() + offset });
        await holder.lock.acquire();
        await holder.renew();
        expect(Math.abs((await stat(lockFile(dataDir))).mtimeMs - (Date.now() + offset))).to.be.below(5_000);
        // Watches a lease that does not look fresh for 2 × 100 ms; the holder renews every few ms.
        const taker = new EmbeddedLock(dataDir, machine(containerB), { renewEveryMs: 100, every: () => () => undefined });
        expect(await taker.holder(), 'unsure without watching').to.equal(null);
        let renewing = true;
        const renewals = (async () => {
          while (renewing) {
            await holder.renew();
            await sleep(5);
          }
        })();
        try {
          for (let round = 0; round < 3; round++) expect((await busy(taker)).host).to.equal('container-a');
        } finally {
          renewing = false;
          await renewals;
        }
        expect(holder.losses).to.deep.equal([]);

        // It stopped renewing (killed, frozen): taken over; the holder, should it run again, is told.
        await taker.acquire();
        expect((await whereIn(dataDir)).host).to.equal('container-b');
        await holder.renew();
        expect(holder.losses.map(({ how }) => how)).to.deep.equal(['replaced']);
        await holder.lock.release();
        await taker.release();
        expect(await readdir(dataDir)).to.deep.equal([]);
      });
    }
  });

  describe('held on this machine, in this pid namespace', () => {
    it('is busy while its process runs, naming the lock file', async () => {
      const dataDir = await tempDir('lock-local');
      const holder = unrenewed(dataDir, { pid: 1001 });
      await holder.acquire();
      await ageBy(dataDir, HOUR); // no lease here: the process is checked
      const error = await busy(unrenewed(dataDir, { pid: 1000 }));
      expect(error.message).to.equal(`The embedded database in ${dataDir} is in use by process 1001 (lock file ${lockFile(dataDir)})${WHAT_TO_DO}`);
      expect(error.host).to.equal(undefined);
      await holder.release();
    });

    it("says that a copied directory's lock file came with the copy, naming the original, instead of only the original's process", async () => {
      const original = await tempDir('lock-original');
      const holder = unrenewed(original, { pid: 1001 });
      await holder.acquire();
      // The directory copied while its service ran, lock file and all (cp -a keeps its mtime).
      const copy = await tempDir('lock-copy');
      await cp(lockFile(original), lockFile(copy), { preserveTimestamps: true });
      const error = await busy(unrenewed(copy, { pid: 1000 }));
      expect(error.message).to.equal(
        `The embedded database in ${copy} looks in use by process 1001, but its lock file ${lockFile(copy)} was written by that process for ${await realpath(original)}: ` +
          `${copy} is most likely a copy of that directory, made with its lock file. If process 1001 runs on ${await realpath(original)} only ` +
          `(its "agent gateway listening" log line names its dataDir), remove ${lockFile(copy)} and start again; a copy made while that process ran may be inconsistent: copy a stopped DATA_DIR, or a snapshot`,
      );
      expect(error.copiedFrom).to.equal(await realpath(original));
      // The original itself, reached by another path (a symbolic link), is no copy.
      const link = join(await tempDir('lock-link'), 'data');
      await symlink(original, link);
      expect((await busy(unrenewed(link, { pid: 1000 }))).message).to.equal(
        `The embedded database in ${link} is in use by process 1001 (lock file ${lockFile(link)})${WHAT_TO_DO}`,
      );
      await holder.release();
    });

    it('is taken over when its pid now belongs to another process (started later), also when that is our own pid', async () => {
      for (const [name, ourPid] of [
        ['pid reused by another process', 1000],
        ['our own pid, from before a restart', 1001],
      ] as const) {
        const dataDir = await tempDir('lock-reused');
        const before = unrenewed(dataDir, { pid: 1001, startOf: () => 'T-before' });
        await before.acquire();
        // The pid runs (isAlive) but started after the lock was taken: it is not the holder.
        const now = unrenewed(dataDir, { pid: ourPid, startOf: () => 'T-now' });
        expect(await now.holder(), name).to.equal(null);
        await now.acquire();
        expect(await pidIn(dataDir), name).to.equal(String(ourPid));
        expect((await whereIn(dataDir)).start, name).to.equal('T-now');
        await now.release();
      }
    });

    it('judges a lock file of an older version (a pid alone) by its pid, as that version did', async () => {
      const dataDir = await tempDir('lock-legacy');
      await writeFile(lockFile(dataDir), '1001\n');
      await ageBy(dataDir, HOUR);
      const [lock] = processes(dataDir, 1);
      expect(await lock.holder()).to.equal(1001);
      expect((await busy(lock)).message).to.equal(
        `The embedded database in ${dataDir} is in use by process 1001 (lock file ${lockFile(dataDir)})${WHAT_TO_DO}`,
      );
      await writeFile(lockFile(dataDir), String(DEAD));
      expect(await lock.holder()).to.equal(null);
      await lock.acquire();
      expect(await pidIn(dataDir)).to.equal('1000');
      await lock.release();
    });
  });
});
