/**
 * The embedded database's own thread: opens PGlite on the data directory it is given and
 * answers the requests of PgliteThread (main thread). PGlite runs every statement
 * synchronously in WebAssembly; here that blocks this thread, not the HTTP server's.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { toPortableError } from "./protocol.js";
const port = parentPort;
if (port === null)
    throw new Error('pgliteWorker runs as a worker thread only');
const { dataDir, settings = {} } = workerData;
const transactions = new Map();
const subscriptions = new Map();
let next = 1;
const begin = (db) => new Promise((begun, failed) => {
    const number = next++;
    let finish;
    const decided = new Promise((resolve) => (finish = resolve));
    const ended = db.transaction(async (tx) => {
        transactions.set(number, { tx, finish, ended });
        begun(number);
        if (!(await decided) && !tx.closed)
            await tx.rollback();
    });
    ended.catch(failed);
});
const target = (db, tx) => {
    if (tx === undefined)
        return db;
    const open = transactions.get(tx);
    if (open === undefined)
        throw new Error(`Transaction ${tx} is not open`);
    return open.tx;
};
const perform = async (db, request) => {
    switch (request.op) {
        case 'query':
            return await target(db, request.tx).query(request.sql, request.params, request.options);
        case 'exec':
            return await target(db, request.tx).exec(request.sql);
        case 'begin':
            return await begin(db);
        case 'rollback':
            return await target(db, request.tx).rollback();
        case 'end': {
            const open = transactions.get(request.tx);
            if (open === undefined)
                throw new Error(`Transaction ${request.tx} is not open`);
            transactions.delete(request.tx);
            open.finish(request.commit);
            await open.ended;
            return null;
        }
        case 'listen': {
            const subscription = next++;
            const unsubscribe = await db.listen(request.channel, (payload) => {
                port.postMessage({ subscription, payload });
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
            if (!db.closed)
                await db.close();
            return null;
    }
};
const serve = (db) => {
    port.on('message', (request) => {
        perform(db, request).then((result) => port.postMessage({ id: request.id, ok: true, result }), (error) => port.postMessage({ id: request.id, ok: false, error: toPortableError(error) }));
    });
    port.postMessage({ opened: true });
};
const extra = Object.fromEntries((process.env.AGW_PG_EXTRA ?? '').split(',').filter(Boolean).map((kv) => kv.split('=')));
const startParams = Object.entries({ ...settings, ...extra }).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
PGlite.create({ dataDir, ...(startParams.length > 0 ? { startParams: [...PGlite.defaultStartParams, ...startParams] } : {}) }).then(serve, (error) => {
    port.postMessage({ opened: false, error: toPortableError(error) });
});
//# sourceMappingURL=pglite-worker.js.map