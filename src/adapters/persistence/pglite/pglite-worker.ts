/**
 * The embedded database's own thread: opens PGlite on the data directory it is given and
 * answers the requests of PgliteThread (main thread). PGlite runs every statement
 * synchronously in WebAssembly; here that blocks this thread, not the HTTP server's.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { DurableNodeFS, durableStartParams } from './durable-node-fs.ts';
import { PreparedQueries } from './prepared-queries.ts';
import { toPortableError, type Notification, type Opened, type Reply, type Request, type ThreadData } from './protocol.ts';

interface OpenTransaction {
  readonly tx: Transaction;
  /** Lets the transaction's callback return: commit, or roll back first. */
  finish(commit: boolean): void;
  /** Settles when PGlite has committed or rolled back; rejects if COMMIT failed. */
  readonly ended: Promise<unknown>;
}

const port = parentPort;
if (port === null) throw new Error('pgliteWorker runs as a worker thread only');
const { dataDir, settings = {} } = workerData as ThreadData;

const transactions = new Map<number, OpenTransaction>();
const subscriptions = new Map<number, () => Promise<void>>();
let next = 1;

const begin = (db: PGlite): Promise<number> =>
  new Promise((begun, failed) => {
    const number = next++;
    let finish!: (commit: boolean) => void;
    const decided = new Promise<boolean>((resolve) => (finish = resolve));
    const ended = db.transaction(async (tx) => {
      transactions.set(number, { tx, finish, ended });
      begun(number);
      if (!(await decided) && !tx.closed) await tx.rollback();
    });
    ended.catch(failed);
  });

/** Set once the database is open: each statement with its values runs through it (PreparedQueries). */
let prepared!: PreparedQueries;

const target = (db: PGlite, tx: number | undefined): PGlite | Transaction => {
  if (tx === undefined) return db;
  const open = transactions.get(tx);
  if (open === undefined) throw new Error(`Transaction ${tx} is not open`);
  return open.tx;
};

const perform = async (db: PGlite, request: Request): Promise<unknown> => {
  switch (request.op) {
    case 'query': {
      // As PGlite's own `query` of the transaction, or of the database (which waits for an open transaction to end).
      const tx = target(db, request.tx);
      if (tx !== db && (tx as Transaction).closed) throw new Error('Transaction is closed');
      return await prepared.query(request.sql, request.params, request.options, tx !== db);
    }
    case 'exec':
      try {
        return await target(db, request.tx).exec(request.sql);
      } finally {
        // Also when it failed: the statements before the failing one may have run.
        prepared.ranElsewhere(request.sql);
      }
    case 'begin':
      return await begin(db);
    case 'rollback':
      return await (target(db, request.tx) as Transaction).rollback();
    case 'end': {
      const open = transactions.get(request.tx);
      if (open === undefined) throw new Error(`Transaction ${request.tx} is not open`);
      transactions.delete(request.tx);
      open.finish(request.commit);
      await open.ended;
      return null;
    }
    case 'listen': {
      const subscription = next++;
      const unsubscribe = await db.listen(request.channel, (payload) => {
        port.postMessage({ subscription, payload } satisfies Notification);
      });
      subscriptions.set(subscription, unsubscribe);
      return subscription;
    }
    case 'unlisten': {
      const unsubscribe = subscriptions.get(request.subscription);
      subscriptions.delete(request.subscription);
      await unsubscribe?.();
      return null;
    }
    case 'close':
      if (!db.closed) await db.close();
      return null;
  }
};

const serve = (db: PGlite): void => {
  prepared = new PreparedQueries(db);
  port.on('message', (request: Request) => {
    perform(db, request).then(
      (result) => port.postMessage({ id: request.id, ok: true, result } satisfies Reply),
      (error: unknown) => port.postMessage({ id: request.id, ok: false, error: toPortableError(error) } satisfies Reply),
    );
  });
  port.postMessage({ opened: true } satisfies Opened);
};

// Durable: what is committed is flushed to the disk (durableStartParams, DurableNodeFS), each
// commit waiting for its flush on this thread: flushing on another thread and holding the answers
// until then was measured and not kept (bench/README.md, "Measurements behind the code").
PGlite.create({ dataDir, fs: new DurableNodeFS(dataDir), startParams: durableStartParams(settings) }).then(serve, (error: unknown) => {
  port.postMessage({ opened: false, error: toPortableError(error) } satisfies Opened);
});
