import type { Timer } from '../../src/ports/timer.js';

/** A Timer the test fires: it records each wait; `fire()` runs the pending callback. */
export class ManualTimer implements Timer {
  readonly waits: number[] = [];
  #pending: (() => void) | undefined;

  after(ms: number, callback: () => void): () => void {
    this.waits.push(ms);
    this.#pending = callback;
    return () => {
      if (this.#pending === callback) this.#pending = undefined;
    };
  }

  get pending(): boolean {
    return this.#pending !== undefined;
  }

  fire(): void {
    const callback = this.#pending;
    this.#pending = undefined;
    callback?.();
  }
}
