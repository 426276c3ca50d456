/** Waits, injected so that schedulers and their tests control time. */
export interface Timer {
  /** Calls `callback` once after `ms` milliseconds (never keeping the process alive); returns the cancel function. */
  after(ms: number, callback: () => void): () => void;
}
