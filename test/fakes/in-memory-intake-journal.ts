import type { IntakeJournal, JournalContents, JournaledRequest } from '../../src/ports/intake-journal.js';

/** IntakeJournal in memory; `failNext` makes the next append or clear reject, as a full disk would. */
export class InMemoryIntakeJournal implements IntakeJournal {
  entries: JournaledRequest[] = [];
  unreadable = 0;
  failNext: Error | undefined;
  clears = 0;
  /** Bytes it takes before it is full (hasRoom false, append rejects). */
  room = Number.POSITIVE_INFINITY;
  #used = 0;

  hasRoom(bytes: number): boolean {
    return this.#used + bytes <= this.room;
  }

  /** Holds the appends from now on (written, not yet durable) until the function returned is called. */
  holdAppends(): () => void {
    let release = (): void => undefined;
    this.#gate = new Promise<void>((resolve) => (release = resolve));
    return () => {
      this.#gate = undefined;
      release();
    };
  }

  #gate: Promise<void> | undefined;

  async append(entry: JournaledRequest): Promise<void> {
    await this.#gate;
    this.#failIfAsked();
    const size = JSON.stringify(entry).length;
    if (!this.hasRoom(size)) throw new Error('the journal is full');
    this.#used += size;
    this.entries.push(entry);
  }

  async read(): Promise<JournalContents> {
    return { entries: [...this.entries], unreadable: this.unreadable };
  }

  async clear(): Promise<void> {
    this.#failIfAsked();
    this.entries = [];
    this.unreadable = 0;
    this.#used = 0;
    this.clears++;
  }

  #failIfAsked(): void {
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure !== undefined) throw failure;
  }
}
