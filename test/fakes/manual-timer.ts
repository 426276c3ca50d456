import type { Timer } from '../../src/ports/timer.js';

/** A Timer the test fires: it records each wait; `fire()` runs the pending callback (the last one set). */
export class ManualTimer implements Timer {
  readonly waits: number[] = [];
  #pending: (() => void) | undefined;
  /** Every callback set and neither cancelled nor fired: more than one is more than one loop. */
  readonly #armed = new Set<() => void>();

  after(ms: number, callback: () => void): () => void {
    this.waits.push(ms);
    this.#pending = callback;
    this.#armed.add(callback);
    return () => {
      this.#armed.delete(callback);
      if (this.#pending === callback) this.#pending = undefined;
    };
  }

  /** How many callbacks are set and not cancelled nor fired. */
  get armed(): number {
    return this.#armed.size;
  }

  get pending(): boolean {
    return this.#pending !== undefined;
  }

  fire(): void {
    const callback = this.#pending;
    this.#pending = undefined;
    if (callback !== undefined) this.#armed.delete(callback);
    callback?.();
  }
}
