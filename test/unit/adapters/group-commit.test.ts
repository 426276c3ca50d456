import { expect } from 'chai';
import { DatabaseUnavailable } from '../../../src/adapters/shared/database-unavailable.js';
import { GroupCommit } from '../../../src/adapters/shared/group-commit.js';

/** A write the test settles by hand: each call is recorded with its items. */
const manualWrites = () => {
  const calls: { items: readonly string[]; settle: (error?: Error) => void }[] = [];
  let called: () => void = () => undefined;
  const write = (items: readonly string[]) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push({ items, settle: (error) => (error ? reject(error) : resolve(items.map((item) => `stored ${item}`))) });
      called();
    });
  /** Resolves once `count` writes have been called. */
  const untilCalls = (count: number) =>
    new Promise<void>((resolve) => {
      called = () => calls.length >= count && resolve();
      called();
    });
  return { calls, write, untilCalls };
};

describe('GroupCommit', () => {
  it('writes an item alone at low load and answers with its own result', async () => {
    const writes = manualWrites();
    const group = new GroupCommit(writes.write, { parallel: 1, maxItems: 10 });
    const answer = group.add('a');
    await writes.untilCalls(1);
    expect(writes.calls[0].items).to.deep.equal(['a']);
    writes.calls[0].settle();
    expect(await answer).to.equal('stored a');
  });

  it('stores the items added while the writes are busy together in the next write, each caller answered once it committed', async () => {
    const writes = manualWrites();
    const group = new GroupCommit(writes.write, { parallel: 1, maxItems: 10 });
    const first = group.add('a');
    await writes.untilCalls(1);
    const later = ['b', 'c', 'd'].map((item) => group.add(item));
    let settled = 0;
    for (const answer of later) void answer.then(() => settled++);
    writes.calls[0].settle();
    expect(await first).to.equal('stored a');
    await writes.untilCalls(2);
    expect(writes.calls[1].items).to.deep.equal(['b', 'c', 'd']);
    expect(settled, 'answered before their write committed').to.equal(0);
    writes.calls[1].settle();
    expect(await Promise.all(later)).to.deep.equal(['stored b', 'stored c', 'stored d']);
  });

  it('runs at most `parallel` writes at once and splits a burst into writes of at most `maxItems`', async () => {
    const writes = manualWrites();
    const group = new GroupCommit(writes.write, { parallel: 2, maxItems: 3 });
    const answers = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((item) => group.add(item));
    await writes.untilCalls(2);
    expect(writes.calls.map((call) => call.items)).to.deep.equal([
      ['a', 'b', 'c'],
      ['d', 'e', 'f'],
    ]);
    writes.calls[0].settle();
    await writes.untilCalls(3);
    expect(writes.calls[2].items).to.deep.equal(['g']);
    writes.calls[1].settle();
    writes.calls[2].settle();
    expect(await Promise.all(answers)).to.deep.equal(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((item) => `stored ${item}`));
  });

  it('commits items of one key in the order they were added, even when parallel writes could carry them at once', async () => {
    const writes = manualWrites();
    const group = new GroupCommit(writes.write, { parallel: 2, maxItems: 2, key: (item: string) => item.split(':')[0] });
    const answers = ['a:1', 'b:1', 'a:2', 'c:1'].map((item) => group.add(item));
    await writes.untilCalls(2);
    // 'a:2' waits for 'a:1' to commit; the other keys do not wait.
    expect(writes.calls.map((call) => call.items)).to.deep.equal([['a:1', 'b:1'], ['c:1']]);
    writes.calls[1].settle();
    expect(await answers[3]).to.equal('stored c:1');
    expect(writes.calls).to.have.length(2);
    writes.calls[0].settle();
    await writes.untilCalls(3);
    expect(writes.calls[2].items).to.deep.equal(['a:2']);
    writes.calls[2].settle();
    expect(await Promise.all(answers)).to.deep.equal(['stored a:1', 'stored b:1', 'stored a:2', 'stored c:1']);
  });

  it('writes the next item of a key after the earlier one failed', async () => {
    const writes = manualWrites();
    const group = new GroupCommit(writes.write, { parallel: 2, maxItems: 10, key: (item: string) => item.split(':')[0] });
    const first = group.add('a:1').catch((error: Error) => error.message);
    const second = group.add('a:2');
    await writes.untilCalls(1);
    writes.calls[0].settle(new Error('refused'));
    expect(await first).to.equal('refused');
    await writes.untilCalls(2);
    expect(writes.calls[1].items).to.deep.equal(['a:2']);
    writes.calls[1].settle();
    expect(await second).to.equal('stored a:2');
  });

  it('tries a failed write of several items again item by item, so that only the refused item fails', async () => {
    const tried: string[][] = [];
    const group = new GroupCommit(
      async (items: readonly string[]) => {
        tried.push([...items]);
        if (items.includes('poison')) throw new Error('refused: poison');
        return items.map((item) => `stored ${item}`);
      },
      { parallel: 1, maxItems: 10 },
    );
    const answers = ['a', 'poison', 'b'].map((item) => group.add(item).catch((error: Error) => error.message));
    expect(await Promise.all(answers)).to.deep.equal(['stored a', 'refused: poison', 'stored b']);
    expect(tried[0]).to.deep.equal(['a', 'poison', 'b']);
    expect(tried.slice(1).sort()).to.deep.equal([['a'], ['b'], ['poison']]);
  });

  for (const [how, failure] of [
    ['DatabaseUnavailable', () => new DatabaseUnavailable('The PostgreSQL server cannot be used for now: connect ECONNREFUSED')],
    ['an error caused by DatabaseUnavailable', () => new Error('insert failed', { cause: new DatabaseUnavailable('The embedded database thread stopped') })],
  ] as const)
    it(`answers every caller of a write of several items that failed with ${how} at once, without trying each item again`, async () => {
      const tried: string[][] = [];
      let down = true;
      const group = new GroupCommit(
        async (items: readonly string[]) => {
          tried.push([...items]);
          if (down) throw failure();
          return items.map((item) => `stored ${item}`);
        },
        { parallel: 1, maxItems: 500 },
      );
      const items = Array.from({ length: 500 }, (_, i) => `item ${i}`);
      const refusals = await Promise.all(
        items.map((item) =>
          group.add(item).then(
            () => undefined,
            (error: Error) => error,
          ),
        ),
      );
      expect(tried, 'writes tried').to.deep.equal([items]);
      const error = refusals[0];
      expect(refusals.every((each) => each === error) && error instanceof Error, "every caller rejected with the write's error").to.equal(true);
      // The next write is tried as usual (a database back meanwhile).
      down = false;
      expect(await Promise.all(['a', 'b'].map((item) => group.add(item)))).to.deep.equal(['stored a', 'stored b']);
      expect(tried).to.have.length(2);
    });

  it('still tries a write of several items again item by item when it failed for another reason than the database being unavailable', async () => {
    const tried: string[][] = [];
    const group = new GroupCommit(
      async (items: readonly string[]) => {
        tried.push([...items]);
        if (items.length > 1) throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
        return items.map((item) => `stored ${item}`);
      },
      { parallel: 1, maxItems: 10 },
    );
    expect(await Promise.all(['a', 'b', 'c'].map((item) => group.add(item)))).to.deep.equal(['stored a', 'stored b', 'stored c']);
    expect(tried).to.have.length(4);
  });

  it('rejects each caller when the database refuses every write, and writes again afterwards', async () => {
    let down = true;
    const group = new GroupCommit(
      (items: readonly string[]) => {
        if (down) throw new Error('connection refused');
        return Promise.resolve(items.map((item) => `stored ${item}`));
      },
      { parallel: 1, maxItems: 10 },
    );
    const failed = await Promise.all(['a', 'b'].map((item) => group.add(item).catch((error: Error) => error.message)));
    expect(failed).to.deep.equal(['connection refused', 'connection refused']);
    down = false;
    expect(await group.add('c')).to.equal('stored c');
  });
});
