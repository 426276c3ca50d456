import { expect } from 'chai';
import type { TaskQueue } from '../../src/ports/task-queue.js';
import { waitFor } from '../support/http.js';

export interface TaskQueueHarness {
  /**
   * A queue on a fresh store, knowing the queue names 'q', 'other' and 'short', and 'ordered' and
   * 'ordered-short', whose groups run one at a time across every process sharing the store. A
   * failed task is retried at once (no backoff), at most twice. A task of 'short' or
   * 'ordered-short' may run 1 s, the others hours.
   */
  open(): Promise<TaskQueue>;
  /** Another queue on the same store, as a second replica of the service would have it. */
  replica(): Promise<TaskQueue>;
  /** Stops the queue (its stored tasks stay) and opens another one on the same store. */
  reopen(): Promise<TaskQueue>;
  close(): Promise<void>;
}

/** Resolves once no task of the queue `name` is waiting (also for a retry) or running: nothing more of it will run. */
export const drained = async (queue: TaskQueue, name = 'q', ms = 20_000): Promise<void> => {
  await waitFor(async () => ((await queue.depth())[name] ?? 0) === 0, ms, `queue ${name} drained`);
};

/** A gate a handler waits at until the test releases it. */
const opened = (): { gate: Promise<void>; release: () => void } => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { gate, release };
};

/** Resolves when `signal` aborts (the queue took the task back). */
const abortOf = (signal: AbortSignal): Promise<void> =>
  new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));

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
      await waitFor(() => seen.length === 1, 10_000, 'seen.length === 1');
      expect(seen[0]).to.deep.equal(payload);
    });

    it('runs every task stored before any worker started, each once', async () => {
      for (let i = 0; i < 20; i++) await queue.enqueue('q', { i });
      const seen: number[] = [];
      await queue.work<{ i: number }>('q', async (task) => void seen.push(task.i));
      await waitFor(() => seen.length >= 20, 20_000, 'seen.length >= 20');
      await drained(queue);
      expect([...seen].sort((a, b) => a - b)).to.deep.equal([...Array(20).keys()]);
    });

    it('keeps stored tasks across a stop and runs them after the next start', async () => {
      await queue.enqueue('q', { survived: true });
      queue = await harness.reopen();
      const seen: object[] = [];
      await queue.work<object>('q', async (task) => void seen.push(task));
      await waitFor(() => seen.length === 1, 10_000, 'seen.length === 1');
      expect(seen[0]).to.deep.equal({ survived: true });
    });

    it('runs a task again after its handler failed', async () => {
      let calls = 0;
      await queue.enqueue('q', {});
      await queue.work<object>('q', async (_task, meta) => {
        calls++;
        if (meta.attempt === 1) throw new Error('first attempt fails');
      });
      await waitFor(() => calls >= 2, 20_000, 'calls >= 2');
    });

    it('runs a task another replica stored while this one was idle, within seconds', async () => {
      const seen: string[] = [];
      await queue.work<{ from: string }>('q', async (task) => void seen.push(task.from));
      // this replica's own task first: its worker is running, and idle once that has run
      await queue.enqueue('q', { from: 'here' });
      await waitFor(() => seen.length === 1, 10_000, 'the own task ran');
      const other = await harness.replica();
      await other.enqueue('q', { from: 'replica' });
      await waitFor(() => seen.length === 2, 10_000, "the replica's task ran here");
      expect(seen).to.deep.equal(['here', 'replica']);
    });

    it('runs as many tasks at once as a bound allows, every slot starting its task without waiting, and no more', async () => {
      let running = 0;
      let most = 0;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      await queue.work<object>(
        'q',
        async () => {
          running++;
          most = Math.max(most, running);
          await released;
          running--;
        },
        { maxConcurrent: 2 },
      );
      await Promise.all([queue.enqueue('q', { n: 1 }), queue.enqueue('q', { n: 2 }), queue.enqueue('q', { n: 3 })]);
      await waitFor(() => running === 2, 10_000, 'two tasks running');
      release();
      await drained(queue);
      expect(most).to.equal(2);
    });

    const runGroups = async (q: TaskQueue) => {
      // enqueued together: one write, one timestamp for all twelve
      await Promise.all(Array.from({ length: 12 }, (_, i) => q.enqueue('q', { chat: i % 3, n: i }, { group: `chat-${i % 3}` })));
      const running = new Set<number>();
      const order: Record<number, number[]> = { 0: [], 1: [], 2: [] };
      let overlap = false;
      await q.work<{ chat: number; n: number }>(
        'q',
        async (task) => {
          if (running.has(task.chat)) overlap = true;
          running.add(task.chat);
          await new Promise((resolve) => setTimeout(resolve, 20));
          order[task.chat].push(task.n);
          running.delete(task.chat);
        },
        { oneAtATimePerGroup: true },
      );
      await waitFor(() => Object.values(order).flat().length === 12, 20_000, 'Object.values(order).flat().length === 12');
      return { overlap, order };
    };

    for (const [kind, name, work] of [
      ['standard', 'q', {}],
      ['ordered', 'ordered', { oneAtATimePerGroup: true }],
    ] as const) {
      it(`runs the tasks stored after a long-running one while it runs (${kind} queue, other groups): one slow task holds nothing else back`, async () => {
        const { gate, release } = opened();
        const started: number[] = [];
        const done: number[] = [];
        await queue.work<{ n: number }>(
          name,
          async (task) => {
            started.push(task.n);
            if (task.n === 0) await gate;
            done.push(task.n);
          },
          work,
        );
        try {
          await queue.enqueue(name, { n: 0 }, { group: 'slow' });
          await waitFor(() => started.includes(0), 20_000, 'the long task started');
          for (let n = 1; n <= 4; n++) await queue.enqueue(name, { n }, { group: `other-${n}` });
          await waitFor(() => done.length === 4, 20_000, 'the four later tasks done while the first still runs');
          expect([...done].sort()).to.deep.equal([1, 2, 3, 4]);
          // Once it ends, its group goes on.
          await queue.enqueue(name, { n: 5 }, { group: 'slow' });
        } finally {
          release();
        }
        await waitFor(() => done.includes(5), 20_000, "the long task's group went on");
      });
    }

    it("lets the group of a task that ended beside a long-running one go on at once (ordered queue): the long one's batch holds no group", async () => {
      const { gate, release } = opened();
      const done: number[] = [];
      // Stored before any worker starts, so that they are fetched together.
      await queue.enqueue('ordered', { n: 0 }, { group: 'slow' });
      for (let n = 1; n <= 4; n++) await queue.enqueue('ordered', { n }, { group: `other-${n}` });
      await queue.work<{ n: number }>(
        'ordered',
        async (task) => {
          if (task.n === 0) await gate;
          done.push(task.n);
        },
        { oneAtATimePerGroup: true },
      );
      try {
        await waitFor(() => done.length === 4, 20_000, 'the four short tasks');
        await queue.enqueue('ordered', { n: 11 }, { group: 'other-1' });
        await waitFor(() => done.includes(11), 20_000, "the next task of a short task's group, while the long one runs");
        expect(done).to.not.include(0);
      } finally {
        release();
      }
      await waitFor(() => done.includes(0), 20_000, 'the long task');
    });

    it('runs the tasks of one group one at a time', async () => {
      expect((await runGroups(queue)).overlap).to.equal(false);
    });

    it('runs the tasks of one group in the order they were stored, also when stored in one millisecond', async () => {
      expect((await runGroups(queue)).order).to.deep.equal({ 0: [0, 3, 6, 9], 1: [1, 4, 7, 10], 2: [2, 5, 8, 11] });
    });

    it('runs the tasks of one group in orderBy order when given, whatever the storage order', async () => {
      // stored all at once, newest first
      await Promise.all([5, 4, 3, 2, 1].map((n) => queue.enqueue('q', { n }, { group: 'chat' })));
      const order: number[] = [];
      await queue.work<{ n: number }>('q', async (task) => void order.push(task.n), { oneAtATimePerGroup: true, orderBy: (task) => task.n });
      await waitFor(() => order.length === 5, 20_000, 'order.length === 5');
      expect(order).to.deep.equal([1, 2, 3, 4, 5]);
    });

    it('runs the tasks of one group of an ordered queue one at a time across two replicas, in the order stored', async () => {
      const other = await harness.replica();
      const running = new Set<number>();
      const started: number[] = [];
      const order: Record<number, number[]> = { 0: [], 1: [], 2: [] };
      const overlaps: number[] = [];
      const handler = async (task: { chat: number; n: number }): Promise<void> => {
        if (running.has(task.chat)) overlaps.push(task.n);
        running.add(task.chat);
        started.push(task.n);
        // The first task of each group is long work (over two polling intervals of the harness):
        // whichever replica is idle polls while the group is busy on the other one.
        if (task.n < 3) await new Promise((resolve) => setTimeout(resolve, 1200));
        order[task.chat].push(task.n);
        running.delete(task.chat);
      };
      await queue.work('ordered', handler, { oneAtATimePerGroup: true });
      await other.work('ordered', handler, { oneAtATimePerGroup: true });
      for (let chat = 0; chat < 3; chat++) await queue.enqueue('ordered', { chat, n: chat }, { group: `chat-${chat}` });
      await waitFor(() => started.length === 3, 30_000, 'started.length === 3');
      // the next tasks of the busy groups, stored by the other replica
      for (let n = 3; n < 12; n++) await other.enqueue('ordered', { chat: n % 3, n }, { group: `chat-${n % 3}` });
      await waitFor(() => Object.values(order).flat().length === 12, 30_000, 'Object.values(order).flat().length === 12');
      expect(overlaps).to.deep.equal([]);
      expect(order).to.deep.equal({ 0: [0, 3, 6, 9], 1: [1, 4, 7, 10], 2: [2, 5, 8, 11] });
    });

    it('gives up a task of an ordered queue that fails on every attempt, so its group goes on', async () => {
      const attempts: number[] = [];
      const done: number[] = [];
      await queue.enqueue('ordered', { n: 1 }, { group: 'chat' });
      await queue.enqueue('ordered', { n: 2 }, { group: 'chat' });
      await queue.work<{ n: number }>(
        'ordered',
        async (task, meta) => {
          if (task.n === 1) {
            attempts.push(meta.attempt);
            throw new Error('always fails');
          }
          done.push(task.n);
        },
        { oneAtATimePerGroup: true },
      );
      await waitFor(() => done.length === 1, 30_000, 'done.length === 1');
      expect(attempts).to.deep.equal([1, 2, 3]);
    });

    it("takes back a task that runs past its queue's time limit: its signal aborts, and it runs again", async () => {
      const aborted: string[] = [];
      const attempts: number[] = [];
      await queue.enqueue('short', { n: 1 });
      await queue.work<{ n: number }>('short', async (_task, meta) => {
        attempts.push(meta.attempt);
        if (meta.attempt > 1) return;
        // The first attempt hangs until the queue takes it back.
        await abortOf(meta.signal);
        aborted.push(String((meta.signal.reason as Error)?.message ?? meta.signal.reason));
      });
      await waitFor(() => attempts.length === 2, 30_000, 'the second attempt');
      await drained(queue, 'short');
      expect(attempts).to.deep.equal([1, 2]);
      expect(aborted).to.have.length(1);
      expect(aborted[0], 'why it was taken back').to.match(/time limit/);
    });

    it('lets a group of an ordered queue go on after its task ran past the time limit on every attempt', async () => {
      const attempts: number[] = [];
      const done: number[] = [];
      await queue.enqueue('ordered-short', { n: 1 }, { group: 'chat' });
      await queue.enqueue('ordered-short', { n: 2 }, { group: 'chat' });
      await queue.work<{ n: number }>(
        'ordered-short',
        async (task, meta) => {
          if (task.n === 2) {
            done.push(task.n);
            return;
          }
          attempts.push(meta.attempt);
          await abortOf(meta.signal);
        },
        { oneAtATimePerGroup: true },
      );
      await waitFor(() => done.length === 1, 40_000, "the group's second task");
      expect(attempts).to.deep.equal([1, 2, 3]);
    });

    it('refuses a task of an ordered queue without a group', async () => {
      let refused: unknown;
      await queue.enqueue('ordered', { n: 1 }).catch((error: unknown) => (refused = error));
      expect(String(refused)).to.match(/needs a group/);
    });

    it('stores a task with an idempotency key once, whether the repeat comes later or at the same moment', async () => {
      const first = await queue.enqueue('q', { n: 1 }, { key: 'update:1' });
      expect(first).to.be.a('string');
      expect(await queue.enqueue('q', { n: 2 }, { key: 'update:1' })).to.equal(null);
      const together = await Promise.all([queue.enqueue('q', { n: 3 }, { key: 'update:2' }), queue.enqueue('q', { n: 4 }, { key: 'update:2' })]);
      expect(together.filter((id) => id === null)).to.have.length(1);
      // the same key in another queue is another task
      expect(await queue.enqueue('other', { n: 5 }, { key: 'update:1' })).to.be.a('string');
      const seen: number[] = [];
      await queue.work<{ n: number }>('q', async (task) => void seen.push(task.n));
      await waitFor(() => seen.length >= 2, 20_000, 'seen.length >= 2');
      await drained(queue);
      expect(seen.sort()).to.deep.equal([1, together[0] === null ? 4 : 3]);
    });

    it('stores a task with an id of its own once, also when another replica queues it again, and answers with that id', async () => {
      const other = await harness.replica();
      const id = queue.newTaskId();
      expect(await queue.enqueue('q', { n: 1 }, { id })).to.equal(id);
      expect(await other.enqueue('q', { n: 2 }, { id })).to.equal(null);
      const later = queue.newTaskId();
      const together = await Promise.all([queue.enqueue('q', { n: 3 }, { id: later }), other.enqueue('q', { n: 4 }, { id: later })]);
      expect(together.filter((each) => each === null)).to.have.length(1);
      const seen: number[] = [];
      await queue.work<{ n: number }>('q', async (task) => void seen.push(task.n));
      await waitFor(() => seen.length >= 2, 20_000, 'seen.length >= 2');
      await drained(queue);
      expect(seen.sort()).to.deep.equal([1, together[0] === null ? 4 : 3]);
    });

    it('runs the tasks of a group queued with their ids in the order the ids were made, not the order they were queued', async () => {
      const ids = Array.from({ length: 6 }, () => queue.newTaskId());
      // queued late and out of order, in one batch: the ids alone say the order
      await Promise.all([5, 3, 1, 4, 0, 2].map((n) => queue.enqueue('ordered', { n }, { group: 'lane', id: ids[n] })));
      const order: number[] = [];
      await queue.work<{ n: number }>('ordered', async (task) => void order.push(task.n), { oneAtATimePerGroup: true });
      await waitFor(() => order.length === 6, 30_000, 'order.length === 6');
      expect(order).to.deep.equal([0, 1, 2, 3, 4, 5]);
    });

    it('runs the tasks of a group of an ordered queue queued with idempotency keys at the same moment in the order they were queued', async () => {
      // A chat's messages arriving together (an album's items, two deliveries at once): one insert
      // carries the first ten, the next ten are queued while it runs. Keyed ids are not made in
      // order (the adapter on pg-boss derives them from the key), so only the queue's own order
      // can tell.
      const queueing = (from: number) =>
        Array.from({ length: 10 }, (_, i) => from + i).map((n) => queue.enqueue('ordered', { n }, { group: 'chat', key: `chat:update:${n}` }));
      const first = queueing(0);
      await new Promise((resolve) => setImmediate(resolve));
      const second = queueing(10);
      expect(await Promise.all([...first, ...second]), 'every task stored').not.to.include(null);
      const order: number[] = [];
      await queue.work<{ n: number }>('ordered', async (task) => void order.push(task.n), { oneAtATimePerGroup: true });
      await waitFor(() => order.length === 20, 30_000, 'order.length === 20');
      expect(order).to.deep.equal(Array.from({ length: 20 }, (_, n) => n));
    });

    it('refuses an id given with an idempotency key', async () => {
      let refused: unknown;
      await queue.enqueue('q', { n: 1 }, { id: queue.newTaskId(), key: 'k' }).catch((error: unknown) => (refused = error));
      expect(refused).to.be.instanceOf(Error);
    });

    it('keeps an idempotency key after its task ran', async () => {
      const seen: number[] = [];
      await queue.work<{ n: number }>('q', async (task) => void seen.push(task.n));
      await queue.enqueue('q', { n: 1 }, { key: 'k' });
      await waitFor(() => seen.length === 1, 20_000, 'seen.length === 1');
      expect(await queue.enqueue('q', { n: 2 }, { key: 'k' })).to.equal(null);
      await drained(queue);
      expect(seen).to.deep.equal([1]);
    });

    it('stores every one of many tasks enqueued at once, each with its own id, and runs each once', async () => {
      const ids = await Promise.all(Array.from({ length: 300 }, (_, i) => queue.enqueue('q', { i })));
      expect(new Set(ids).size).to.equal(300);
      const seen = new Map<number, number>();
      await queue.work<{ i: number }>('q', async (task) => void seen.set(task.i, (seen.get(task.i) ?? 0) + 1));
      await waitFor(() => seen.size === 300, 30_000, 'seen.size === 300');
      await drained(queue);
      expect([...seen.values()].every((count) => count === 1)).to.equal(true);
    });

    it('counts waiting tasks in its depth', async () => {
      await queue.enqueue('q', {});
      await queue.enqueue('q', {});
      expect((await queue.depth()).q).to.equal(2);
    });

    it('counts a task in its depth, as it is now, until the task has run: waiting, then running, then 0', async () => {
      expect((await queue.depth()).q, 'before any task').to.equal(0);
      await queue.enqueue('q', {});
      expect((await queue.depth()).q, 'waiting').to.equal(1);
      let release = (): void => undefined;
      const held = new Promise<void>((done) => (release = done));
      let started = false;
      let finished = false;
      await queue.work('q', async () => {
        started = true;
        await held;
        finished = true;
      });
      await waitFor(() => started, 10_000, 'started');
      expect((await queue.depth()).q, 'running').to.equal(1);
      release();
      await waitFor(() => finished, 10_000, 'finished');
      await drained(queue);
    });
  });
};
