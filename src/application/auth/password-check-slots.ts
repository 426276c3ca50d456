/**
 * At most `running` password checks at once across all clients, with at most `waiting` more
 * queued (first come, first served). A slow hash (scrypt) runs on libuv's thread pool, which
 * file, DNS and zlib work shares: unbounded, many clients' logins would fill it. Past the
 * queue a check is refused at once (acquire resolves to undefined) rather than queued for long.
 */
export class PasswordCheckSlots {
  #running = 0;
  readonly #queue: Array<() => void> = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  /** A slot, once one is free (its release is idempotent), or undefined when the queue is full. */
  async acquire(): Promise<(() => void) | undefined> {
    if (this.#running < this.running) {
      this.#running++;
    } else {
      if (this.#queue.length >= this.waiting) return undefined;
      // The releasing check hands its slot over: #running stays as it is.
      await new Promise<void>((resolve) => this.#queue.push(resolve));
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      if (next === undefined) this.#running--;
      else next();
    };
  }
}
