import { expect } from 'chai';
import type { TaskQueue } from '../../src/ports/TaskQueue.js';

export interface TaskQueueHarness {
  /** A queue on a fresh store, knowing the queue names 'q'. */
  open(): Promise<TaskQueue>;
  /** Stops the queue (its stored tasks stay) and opens another one on the same store. */
  reopen(): Promise<TaskQueue>;
  close(): Promise<void>;
}

const waitFor = async (check: () => boolean, ms: number): Promise<boolean> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
};

/** The behaviour every TaskQueue adapter must have. */
export const describeTaskQueueContract = (name: string, makeHarness: () => TaskQueueHarness): void => {
  describe(`TaskQueue contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: TaskQueueHarness;
    let queue: TaskQueue;
    beforeEach(async () => {
      harness = makeHarness();
      queue = await harness.open();
    });
    afterEach(async () => harness.close());

    it('hands each stored task to a worker with its payload intact', async () => {
      const seen: object[] = [];
      const payload = { text: 'ünïcode ✓', nested: { list: [1, null, true] } };
      await queue.enqueue('q', payload);
      await queue.work<object>('q', async (task) => void seen.push(task));
      expect(await waitFor(() => seen.length === 1, 10_000)).to.equal(true);
      expect(seen[0]).to.deep.equal(payload);
    });

    it('runs every task stored before any worker started, each once', async () => {
      for (let i = 0; i < 20; i++) await queue.enqueue('q', { i });
      const seen: number[] = [];
      await queue.work<{ i: number }>('q', async (task) => void seen.push(task.i));
      expect(await waitFor(() => seen.length >= 20, 20_000)).to.equal(true);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect([...seen].sort((a, b) => a - b)).to.deep.equal([...Array(20).keys()]);
    });

    it('keeps stored tasks across a stop and runs them after the next start', async () => {
      await queue.enqueue('q', { survived: true });
      queue = await harness.reopen();
      const seen: object[] = [];
      await queue.work<object>('q', async (task) => void seen.push(task));
      expect(await waitFor(() => seen.length === 1, 10_000)).to.equal(true);
      expect(seen[0]).to.deep.equal({ survived: true });
    });

    it('runs a task again after its handler failed', async () => {
      let calls = 0;
      await queue.enqueue('q', {});
      await queue.work<object>('q', async (_task, meta) => {
        calls++;
        if (meta.attempt === 1) throw new Error('first attempt fails');
      });
      expect(await waitFor(() => calls >= 2, 20_000)).to.equal(true);
    });

    it('counts waiting tasks in its depth', async () => {
      await queue.enqueue('q', {});
      await queue.enqueue('q', {});
      expect((await queue.depth()).q).to.equal(2);
    });
  });
};
