import { createHook } from 'node:async_hooks';

/**
 * One entry of `process.nextTick`'s queue, held for the life of the process (see keepNextTickFast).
 * Never read: holding it is the point.
 */
let held: object | undefined;

const noop = (): void => {};

/**
 * Keeps `process.nextTick` on V8's fast path for the life of the process.
 *
 * Node.js builds each entry of the nextTick queue with an object literal whose first keys are
 * computed (`{[async_id_symbol]: …, [trigger_async_id_symbol]: …, [async_context_frame]: …,
 * callback, args}`, lib/internal/process/task_queues.js). V8 defines such keys through a
 * feedback slot that remembers, weakly, the shape (map) the object had; when a full garbage
 * collection finds no queue entry alive (rare: seen at start-up in some processes, and after
 * collections forced while idle), the shapes are collected, the next entry gets new ones, and
 * V8 marks the slot megamorphic for good: from then on every nextTick adds its properties
 * through the runtime. Measured on Node 24: ~0.1 µs a call before, ~1 µs after, on a slow 2-core
 * VM, and an HTTP request passes nextTick about seven times (bench/README.md, "Measurements
 * behind the code").
 *
 * Holding one entry keeps its shape, and through it the shapes it was built from, alive, so the
 * slot stays monomorphic. The entry is caught with an `init` async hook, enabled for the one
 * nextTick made here and disabled before this returns. Call it first thing at start, before
 * start-up's collections. Returns whether an entry is held (false when a Node.js release no
 * longer reports nextTick entries as `TickObject`: then nothing changes).
 */
export const keepNextTickFast = (): boolean => {
  if (held === undefined) {
    const hook = createHook({
      init(_asyncId, type, _triggerAsyncId, resource) {
        if (type === 'TickObject' && held === undefined) held = resource;
      },
    });
    hook.enable();
    try {
      process.nextTick(noop);
    } finally {
      hook.disable();
    }
  }
  return held !== undefined;
};

/** The entry held, for tests (the same object every time). */
export const heldNextTickEntry = (): object | undefined => held;
