import type { LiveSet } from '../ports/live-set.js';

/** A LiveSet a reload replaces as a whole: readers hold the snapshot they took, never a half-built one. */
export class Swappable<T> implements LiveSet<T> {
  #value: T;

  constructor(value: T) {
    this.#value = value;
  }

  current(): T {
    return this.#value;
  }

  replace(value: T): void {
    this.#value = value;
  }
}
