import { expect } from 'chai';
import { AbsentDigests } from '../../../src/adapters/persistence/absent-digests.js';

/** A store of digests whose reads are counted and can be held or made to fail. */
const store = (digests: string[]) => {
  const state = { reads: 0, fail: false, hold: undefined as Promise<void> | undefined, digests };
  const read = async (limit: number): Promise<string[]> => {
    state.reads++;
    const snapshot = state.digests.slice(0, limit);
    if (state.hold) await state.hold;
    if (state.fail) throw new Error('database down');
    return snapshot;
  };
  return { state, read };
};

describe('AbsentDigests', () => {
  it('reads the stored digests once for every caller, then answers from memory', async () => {
    const { state, read } = store(['a', 'b']);
    const absent = new AbsentDigests(read);
    const answers = await Promise.all(['a', 'x', 'b', 'y', 'x'].map((d) => absent.surelyAbsent(d)));
    expect(answers).to.deep.equal([false, true, false, true, true]);
    for (let i = 0; i < 100; i++) expect(await absent.surelyAbsent(`z${i}`)).to.equal(true);
    expect(state.reads).to.equal(1);
  });

  it('counts a digest notified while the read runs as maybe present', async () => {
    const { state, read } = store(['a']);
    let release!: () => void;
    state.hold = new Promise((resolve) => (release = resolve));
    const absent = new AbsentDigests(read);
    const pending = absent.surelyAbsent('new');
    absent.changed('new');
    release();
    expect(await pending).to.equal(false);
    expect(await absent.surelyAbsent('other')).to.equal(true);
  });

  it('keeps a digest that appeared or went as maybe present (the caller asks the database)', async () => {
    const { read } = store(['a']);
    const absent = new AbsentDigests(read);
    expect(await absent.surelyAbsent('n')).to.equal(true);
    absent.changed('n');
    expect(await absent.surelyAbsent('n')).to.equal(false);
  });

  it('reads again after a reset, and after a failed read', async () => {
    const { state, read } = store(['a']);
    const absent = new AbsentDigests(read);
    state.fail = true;
    expect(await absent.surelyAbsent('x')).to.equal(false);
    state.fail = false;
    expect(await absent.surelyAbsent('x')).to.equal(true);
    state.digests.push('x');
    absent.reset();
    expect(await absent.surelyAbsent('x')).to.equal(false);
    expect(state.reads).to.equal(3);
  });

  it('with more keys than it may hold: remembers single misses instead, bounded, each forgotten when notified', async () => {
    const { state, read } = store(['a', 'b', 'c']);
    const absent = new AbsentDigests(read, { maxKnown: 2, maxMissed: 2 });
    expect(await absent.surelyAbsent('x')).to.equal(false);
    absent.missed('x', absent.generation);
    absent.missed('y', absent.generation);
    expect(await absent.surelyAbsent('x')).to.equal(true);
    absent.missed('z', absent.generation);
    // the oldest miss was dropped for the newest
    expect([await absent.surelyAbsent('x'), await absent.surelyAbsent('y'), await absent.surelyAbsent('z')]).to.deep.equal([false, true, true]);
    absent.changed('y');
    expect(await absent.surelyAbsent('y')).to.equal(false);
    // a miss whose lookup raced a change is not remembered
    const before = absent.generation;
    absent.changed('other');
    absent.missed('w', before);
    expect(await absent.surelyAbsent('w')).to.equal(false);
    expect(state.reads).to.equal(1);
  });

  it('lets go of the digests once notifications push them past the bound, and reads again', async () => {
    const { state, read } = store(['a']);
    const absent = new AbsentDigests(read, { maxKnown: 2, maxMissed: 2 });
    expect(await absent.surelyAbsent('x')).to.equal(true);
    absent.changed('b');
    absent.changed('c');
    state.digests.push('b');
    expect(await absent.surelyAbsent('x')).to.equal(true);
    expect(state.reads).to.equal(2);
  });
});
