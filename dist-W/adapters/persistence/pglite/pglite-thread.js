import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { fromPortableError } from './protocol.js';
/**
 * The young generation of the thread's V8 heap, in MB. V8's default on this size of machine grows
 * to 32 MB and stays there; the thread's JavaScript (PGlite's glue, the messages) needs little:
 * its committed heap measured 61 MB with the default and 34 MB with 4 MB after 2 000 statements.
 * 8 MB matches the main thread's `--max-semi-space-size=8` (docs/deployment.md, "Memory").
 */
const THREAD_YOUNG_GENERATION_MB = 8;
/**
 * The embedded PGlite database, run on a thread of its own. PGlite executes each statement
 * synchronously in WebAssembly; on the main thread that held the event loop — and every HTTP
 * request waiting on it — for the length of each statement, and longer when queued statements
 * ran back to back (bench/README.md, "Measurements behind the code"). The statements now run on the
 * other thread and the main thread only sends and receives messages.
 *
 * Offers the part of PGlite's interface that MikroORM (through kysely), pg-boss (`fromPglite`)
 * and the service use: `query`, `exec`, `transaction`, `listen`, `close`. Query options that
 * hold functions (parsers, serializers) cannot cross threads and are refused.
 *
 * While a request is outstanding the thread keeps the process alive; otherwise it does not,
 * so an open database never holds a finished process — as with PGlite on the main thread.
 */
export class PgliteThread {
    onFailure;
    #worker;
    #pending = new Map();
    #listeners = new Map();
    #next = 1;
    #closed = false;
    #closing;
    #failure;
    ready = true;
    waitReady = Promise.resolve();
    constructor(worker, onFailure) {
        this.onFailure = onFailure;
        this.#worker = worker;
        worker.on('message', (message) => {
            if ('subscription' in message)
                this.#listeners.get(message.subscription)?.(message.payload);
            else
                this.#settle(message);
        });
        worker.on('error', (error) => this.#fail(new Error(`The embedded database thread failed: ${error.message}`, { cause: error })));
        worker.on('exit', (code) => this.#fail(new Error(`The embedded database thread stopped (exit code ${code})`)));
        worker.unref();
    }
    /**
     * Starts the thread and opens the database in `dataDir`; rejects with PGlite's error if it
     * cannot. `onFailure` hears once if the thread dies later (every request then fails).
     * `settings`: PostgreSQL settings for this boot only (none: PGlite's defaults).
     */
    static async open(dataDir, onFailure = () => undefined, settings = {}) {
        const extension = extname(fileURLToPath(import.meta.url)); // .ts under tsx (tests), .js when built
        const worker = new Worker(new URL(`./pglite-worker${extension}`, import.meta.url), {
            // Under tsx (the tests) the thread would load tsx's loader too: about 0.4 s of each open.
            // The worker is TypeScript that Node runs by stripping its types, so where Node can, the
            // thread starts without the parent's loader options.
            execArgv: extension === '.ts' && process.features.typescript ? [] : undefined,
            workerData: { dataDir, settings },
            resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
        });
        let opening;
        const onMessage = (opened) => opening?.resolve(opened);
        const onError = (error) => opening?.reject(error);
        const onExit = (code) => opening?.reject(new Error(`The embedded database thread stopped while opening (exit code ${code})`));
        worker.on('message', onMessage).on('error', onError).on('exit', onExit);
        try {
            const opened = await new Promise((resolve, reject) => (opening = { resolve, reject }));
            if (!opened.opened) {
                const cause = fromPortableError(opened.error);
                throw new Error(`Cannot open the embedded database in ${dataDir}: ${cause.message}`, { cause });
            }
        }
        catch (error) {
            await worker.terminate();
            throw error;
        }
        finally {
            worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        }
        return new PgliteThread(worker, onFailure);
    }
    /** How long the database thread's event loop has worked and idled so far (every statement runs there), in ms. */
    eventLoopUtilization() {
        return this.#worker.performance.eventLoopUtilization();
    }
    /** True once closed, or once the thread has failed. */
    get closed() {
        return this.#closed || this.#failure !== undefined;
    }
    async query(sql, params, options) {
        return (await this.#call({ op: 'query', sql, params, options: portable(options) }));
    }
    async exec(sql) {
        return (await this.#call({ op: 'exec', sql }));
    }
    /**
     * Runs `callback` in a transaction, as PGlite does: committed when it returns, rolled back
     * when it throws or calls `rollback()`. Other statements wait until it has ended.
     */
    async transaction(callback) {
        const number = (await this.#call({ op: 'begin' }));
        let closed = false;
        const open = () => {
            if (closed)
                throw new Error('Transaction is closed');
        };
        const tx = {
            query: async (sql, params, options) => {
                open();
                return (await this.#call({ op: 'query', tx: number, sql, params, options: portable(options) }));
            },
            exec: async (sql) => {
                open();
                return (await this.#call({ op: 'exec', tx: number, sql }));
            },
            rollback: async () => {
                open();
                await this.#call({ op: 'rollback', tx: number });
                closed = true;
            },
            get closed() {
                return closed;
            },
        };
        let result;
        try {
            result = await callback(tx);
        }
        catch (error) {
            closed = true;
            await this.#call({ op: 'end', tx: number, commit: false });
            throw error;
        }
        closed = true;
        await this.#call({ op: 'end', tx: number, commit: true });
        return result;
    }
    /** Subscribes to NOTIFY on `channel`; returns the function that unsubscribes. */
    async listen(channel, callback) {
        const subscription = (await this.#call({ op: 'listen', channel }));
        this.#listeners.set(subscription, callback);
        return async () => {
            if (!this.#listeners.delete(subscription) || this.#closed)
                return;
            await this.#call({ op: 'unlisten', subscription });
        };
    }
    /** Closes the database (PGlite writes its state out) and ends the thread. Idempotent. */
    close() {
        this.#closing ??= this.closed ? Promise.resolve() : this.#close();
        return this.#closing;
    }
    async #close() {
        try {
            await this.#call({ op: 'close' });
        }
        finally {
            this.#closed = true;
            this.#listeners.clear();
            await this.#worker.terminate();
        }
    }
    #call(request) {
        if (this.#failure)
            return Promise.reject(this.#failure);
        if (this.#closed)
            return Promise.reject(new Error('The embedded database is closed'));
        const id = this.#next++;
        return new Promise((resolve, reject) => {
            try {
                this.#worker.postMessage({ ...request, id });
            }
            catch (error) {
                // A value that cannot be copied to another thread (a function, a symbol) as a parameter.
                reject(new Error(`Cannot send this statement to the embedded database: ${error.message}`, { cause: error }));
                return;
            }
            if (this.#pending.size === 0)
                this.#worker.ref();
            this.#pending.set(id, { resolve, reject });
        });
    }
    #settle(reply) {
        const pending = this.#pending.get(reply.id);
        if (pending === undefined)
            return;
        this.#pending.delete(reply.id);
        if (this.#pending.size === 0)
            this.#worker.unref();
        if (reply.ok)
            pending.resolve(reply.result);
        else
            pending.reject(fromPortableError(reply.error));
    }
    /** The thread is gone: every outstanding and later request fails with `error`. */
    #fail(error) {
        if (this.#closed || this.#failure !== undefined)
            return;
        this.#failure = error;
        this.onFailure(error);
        for (const pending of this.#pending.values())
            pending.reject(this.#failure);
        this.#pending.clear();
    }
}
const portable = (options) => {
    if (options === undefined)
        return undefined;
    for (const [key, value] of Object.entries(options)) {
        if (typeof value === 'function' || (key !== 'rowMode' && key !== 'paramTypes' && value !== undefined)) {
            throw new Error(`Query option "${key}" is not supported by the embedded database thread`);
        }
    }
    return options;
};
//# sourceMappingURL=pglite-thread.js.map