import type { Timer } from '../../ports/timer.js';

/** Timer on setTimeout, unref'd: a pending wait never keeps the process alive. */
export class NodeTimer implements Timer {
  after(ms: number, callback: () => void): () => void {
    // setTimeout's limit is 2^31-1 ms; schedulers wait much less anyway.
    const handle = setTimeout(callback, Math.min(ms, 2 ** 31 - 1));
    handle.unref();
    return () => clearTimeout(handle);
  }
}
