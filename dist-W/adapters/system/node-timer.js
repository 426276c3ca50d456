/** Timer on setTimeout, unref'd: a pending wait never keeps the process alive. */
export class NodeTimer {
    after(ms, callback) {
        // setTimeout's limit is 2^31-1 ms; schedulers wait much less anyway.
        const handle = setTimeout(callback, Math.min(ms, 2 ** 31 - 1));
        handle.unref();
        return () => clearTimeout(handle);
    }
}
//# sourceMappingURL=node-timer.js.map