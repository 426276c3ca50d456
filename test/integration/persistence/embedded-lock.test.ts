import { expect } from 'chai';
import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EmbeddedDatabaseBusy, EmbeddedLock } from '../../../src/adapters/persistence/embedded-lock.js';
import { tempDir } from '../../support/gateway-process.js';

/*
 * Several processes starting on one data directory, stood in by locks of distinct pids in this
 * process on the real file system: their file operations interleave as separate processes' do.
 */
const DEAD = 999_999;
const processes = (dataDir: string, count: number): EmbeddedLock[] =>
  Array.from({ length: count }, (_, index) => new EmbeddedLock(dataDir, { pid: 1000 + index, isAlive: (pid) => pid !== DEAD }));

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
      expect(await readFile(join(dataDir, 'embedded.pid'), 'utf8')).to.equal(String(1000 + winners[0]));
      const loser = locks[(winners[0] + 1) % locks.length];
      expect(await loser.holder()).to.equal(1000 + winners[0]);
    }
  });

  it("goes to exactly one of several processes taking a dead process's lock over at once", async () => {
    for (let round = 0; round < 20; round++) {
      const dataDir = await tempDir('lock-stale');
      await writeFile(join(dataDir, 'embedded.pid'), String(DEAD));
      const winners = await acquireAtOnce(processes(dataDir, 6));
      expect(winners, `round ${round}`).to.have.length(1);
      expect(await readFile(join(dataDir, 'embedded.pid'), 'utf8')).to.equal(String(1000 + winners[0]));
    }
  });

  it('takes over a lock file left empty or unreadable, and leaves no file of its own behind', async () => {
    const dataDir = await tempDir('lock-empty');
    await writeFile(join(dataDir, 'embedded.pid'), '');
    const [lock] = processes(dataDir, 1);
    await lock.acquire();
    expect(await readFile(join(dataDir, 'embedded.pid'), 'utf8')).to.equal('1000');
    await lock.release();
    expect(await readdir(dataDir)).to.deep.equal([]);
  });

  it("takes a dead process's lock over also when a process died holding the takeover guard (once the guard is stale)", async () => {
    const dataDir = await tempDir('lock-guard');
    await writeFile(join(dataDir, 'embedded.pid'), String(DEAD));
    // A guard 7.5 s old: stale 2.5 s from now (at 10 s), later than a start used to try.
    const guard = join(dataDir, 'embedded.pid.takeover');
    await writeFile(guard, String(DEAD));
    const old = new Date(Date.now() - 7_500);
    await utimes(guard, old, old);
    const [lock] = processes(dataDir, 1);
    await lock.acquire();
    expect(await readFile(join(dataDir, 'embedded.pid'), 'utf8')).to.equal('1000');
  });

  it("releases only its own lock, never a newer holder's", async () => {
    const dataDir = await tempDir('lock-release');
    const [first, second] = processes(dataDir, 2);
    await first.acquire();
    await writeFile(join(dataDir, 'embedded.pid'), '1001');
    await first.release();
    expect(await second.holder()).to.equal(null); // its own pid: no other holder
    expect(await first.holder()).to.equal(1001);
  });
});
