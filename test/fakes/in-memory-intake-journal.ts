import type { IntakeJournal, JournalContents, JournaledRequest } from '../../src/ports/intake-journal.js';

/** IntakeJournal in memory; `failNext` makes the next append or clear reject, as a full disk would. */
export class InMemoryIntakeJournal implements IntakeJournal {
  entries: JournaledRequest[] = [];
  unreadable = 0;
  failNext: Error | undefined;
  clears = 0;

  async append(entry: JournaledRequest): Promise<void> {
    this.#failIfAsked();
    this.entries.push(entry);
  }

  async read(): Promise<JournalContents> {
    return { entries: [...this.entries], unreadable: this.unreadable };
  }

  async clear(): Promise<void> {
    this.#failIfAsked();
    this.entries = [];
    this.unreadable = 0;
    this.clears++;
  }

  #failIfAsked(): void {
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure !== undefined) throw failure;
  }
}
