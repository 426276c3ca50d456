import { InMemoryTaskQueue, InMemoryTaskStore } from '../fakes/in-memory-task-queue.js';
import { describeTaskQueueContract } from './task-queue.contract.js';
import { harnessOn, pgliteStore, settings } from './task-queue.harness.js';

// The contract on PostgreSQL: task-queue-postgres.test.ts; what only the embedded database does: task-queue-pglite.test.ts.

// The embedded database as the service runs it: PGlite on a thread of its own.
describeTaskQueueContract('pg-boss on PGlite (own thread)', () => harnessOn(pgliteStore));

// The unit tests' fake: queues on one store are replicas on one database.
describeTaskQueueContract('in memory (the fake the unit tests use)', () => {
  let store = new InMemoryTaskStore();
  let current: InMemoryTaskQueue | undefined;
  let replicas: InMemoryTaskQueue[] = [];
  const make = (): InMemoryTaskQueue =>
    new InMemoryTaskQueue(store, {
      queues: settings.queues,
      orderedQueues: settings.orderedQueues,
      retryLimit: settings.retryLimit,
      runningTaskMs: { short: 1000, 'ordered-short': 1000 },
    });
  return {
    open: async () => {
      store = new InMemoryTaskStore();
      current = make();
      return current;
    },
    replica: async () => {
      const replica = make();
      replicas.push(replica);
      return replica;
    },
    reopen: async () => {
      current?.stop();
      current = make();
      return current;
    },
    close: async () => {
      for (const queue of [...replicas, current]) queue?.stop();
      replicas = [];
    },
  };
});
