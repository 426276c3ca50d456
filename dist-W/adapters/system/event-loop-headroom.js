import { readFileSync } from 'node:fs';
/**
 * A thread's loop times with the time it spent waiting for a CPU counted as working: the second
 * field of Linux's `/proc/<pid>/task/<tid>/schedstat` (nanoseconds runnable but not running).
 * Event-loop utilization alone counts that time as idle when the loop waits in epoll for a CPU
 * to answer the events it already has: on a machine whose cores are taken by other processes
 * (the commands that background tasks start, a load generator), the main thread then looks
 * half idle while its callers wait. `schedstat`: the file's path, or how to read it (tests);
 * where it cannot be read (not Linux) the loop times are given as they are.
 */
export const withRunQueueWait = (loop, schedstat = `/proc/${process.pid}/task/${process.pid}/schedstat`) => {
    const read = typeof schedstat === 'string' ? () => readFileSync(schedstat, 'latin1') : schedstat;
    let readable = true;
    return () => {
        const times = loop();
        if (!readable)
            return times;
        let waitedMs;
        try {
            waitedMs = Number(read().split(' ')[1]) / 1e6;
        }
        catch {
            readable = false;
            return times;
        }
        if (!Number.isFinite(waitedMs))
            return times;
        return { active: times.active + waitedMs, idle: times.idle - waitedMs };
    };
};
export const DEFAULT_HEADROOM = { busyAbove: 0.7, windowMs: 100, tickMs: 10, startsPerTick: 4, maxWaitMs: 1000 };
/**
 * Headroom from event-loop utilization: the main thread's and, on the embedded database, the
 * database thread's, where every statement of requests and tasks alike runs. Below `busyAbove`
 * (and with nobody waiting) a task starts at once, up to `startsPerTick` in one tick; beyond that,
 * or above `busyAbove`, tasks queue and start in order, up to `startsPerTick` per tick while there
 * is room and one per tick once the first has waited `maxWaitMs`. Measured with
 * bench/messaging.mjs at 500 updates/s (docs/architecture.md, "Background work yields to
 * requests"): the webhook's p99 fell from ~200 ms to 15–29 ms.
 */
export class EventLoopHeadroom {
    sources;
    settings;
    timer;
    now;
    /** Samples of every source, oldest first, at least a tick apart, reaching back one window. */
    #samples;
    #waiting = [];
    #ticking = false;
    /** When the current tick began, and how many tasks started in it (at once or let go by #tick). */
    #tickBegan = Number.NEGATIVE_INFINITY;
    #startedThisTick = 0;
    constructor(
    /** One per measured thread, e.g. `() => performance.eventLoopUtilization()`. */
    sources, settings, timer, 
    /** Monotonic milliseconds. */
    now = () => performance.now()) {
        this.sources = sources;
        this.settings = settings;
        this.timer = timer;
        this.now = now;
        this.#samples = [{ at: now(), times: sources.map((source) => source()) }];
    }
    wait() {
        if (this.settings.busyAbove >= 1)
            return Promise.resolve();
        // At most `startsPerTick` at once, even with room: a queue hands over a whole fetch of tasks
        // in one turn of the event loop, and busyness cannot see work that has not run yet. Started
        // together, 40 chat messages held the loop for ~20 ms and the webhooks behind it waited.
        if (this.#waiting.length === 0 && this.#startsLeftThisTick() > 0 && this.#busyness() < this.settings.busyAbove) {
            this.#startedThisTick++;
            return Promise.resolve();
        }
        return new Promise((start) => {
            this.#waiting.push({ since: this.now(), start });
            this.#tick();
        });
    }
    /**
     * The share of the last window (sliding, in steps of a tick) the busiest source spent working.
     * Sampled at most once per tick, and only when asked: an idle service takes no samples.
     */
    #busyness() {
        const at = this.now();
        if (at - this.#samples[this.#samples.length - 1].at >= this.settings.tickMs)
            this.#samples.push({ at, times: this.sources.map((source) => source()) });
        // the base: the newest sample at least a window old (or the oldest there is)
        while (this.#samples.length > 2 && at - this.#samples[1].at >= this.settings.windowMs)
            this.#samples.shift();
        const base = this.#samples[0].times;
        const newest = this.#samples[this.#samples.length - 1].times;
        return Math.max(0, ...newest.map((current, i) => {
            const active = current.active - base[i].active;
            const total = active + current.idle - base[i].idle;
            return total > 0 ? active / total : 0;
        }));
    }
    /** Starts the current tick still allows; a new tick begins `tickMs` after the last one began. */
    #startsLeftThisTick() {
        const at = this.now();
        if (at - this.#tickBegan >= this.settings.tickMs) {
            this.#tickBegan = at;
            this.#startedThisTick = 0;
        }
        return this.settings.startsPerTick - this.#startedThisTick;
    }
    #tick() {
        if (this.#ticking)
            return;
        this.#ticking = true;
        this.timer.after(this.settings.tickMs, () => {
            this.#ticking = false;
            const room = this.#busyness() < this.settings.busyAbove;
            const overdue = () => this.now() - this.#waiting[0].since >= this.settings.maxWaitMs;
            const left = this.#startsLeftThisTick();
            let starts = room ? left : this.#waiting.length > 0 && overdue() ? 1 : 0;
            while (starts-- > 0 && this.#waiting.length > 0) {
                this.#startedThisTick++;
                this.#waiting.shift().start();
            }
            if (this.#waiting.length > 0)
                this.#tick();
        });
    }
}
//# sourceMappingURL=event-loop-headroom.js.map