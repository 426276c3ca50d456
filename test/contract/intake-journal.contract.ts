import { expect } from 'chai';
import type { IntakeJournal, JournaledRequest } from '../../src/ports/intake-journal.js';

export interface IntakeJournalHarness {
  readonly journal: IntakeJournal;
  /** The same journal as a process started after a crash sees it. */
  reopen(): Promise<IntakeJournal>;
}

export const journaled = (n: number, overrides: Partial<JournaledRequest['request']> = {}): JournaledRequest => ({
  keyId: `key-${n % 2}`,
  keyHash: (n % 2 === 0 ? 'a' : 'b').repeat(64),
  request: {
    id: `70000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    watchPath: '/webhook',
    receivedAt: new Date(Date.UTC(2026, 10, 30, 12, 0, 0, n)),
    // A stored request's text as it is: NUL, a lone surrogate and a line break stay as they were.
    request: JSON.stringify({ body: { id: n, text: 'line\nnext \u0000 \ud800 "quoted"' }, query: {}, headers: {} }),
    triggers: ['run', 'notify'],
    runs: [
      { trigger: 'run', runId: `71000000-0000-7000-8000-${String(n).padStart(12, '0')}` },
      { trigger: 'notify', runId: `72000000-0000-7000-8000-${String(n).padStart(12, '0')}` },
    ],
    replayOf: null,
    ...overrides,
  },
});

/** The behaviour every IntakeJournal adapter must have. */
export const describeIntakeJournalContract = (name: string, open: () => Promise<IntakeJournalHarness>): void => {
  describe(`IntakeJournal contract: ${name}`, () => {
    let harness: IntakeJournalHarness;
    beforeEach(async () => {
      harness = await open();
    });

    it('gives back an entry without a key as it was appended, beside keyed ones (the running service’s entries have none)', async () => {
      const { keyId: _id, keyHash: _hash, ...keyless } = journaled(7);
      await harness.journal.append(keyless);
      await harness.journal.append(journaled(8));
      expect((await (await harness.reopen()).read()).entries).to.deep.equal([keyless, journaled(8)]);
    });

    it('gives back nothing when nothing was appended', async () => {
      expect(await harness.journal.read()).to.deep.equal({ entries: [], unreadable: 0 });
    });

    it('gives back every entry appended, whole and in the order appended, also to the next process', async () => {
      const entries = Array.from({ length: 50 }, (_, n) => journaled(n));
      // Appended at once: they share writes, and each append resolves once its entry is kept.
      await Promise.all(entries.map((entry) => harness.journal.append(entry)));
      await harness.journal.append(journaled(50));
      const expected = [...entries, journaled(50)];
      expect((await harness.journal.read()).entries).to.deep.equal(expected);
      expect((await (await harness.reopen()).read()).entries).to.deep.equal(expected);
    });

    it('is empty after clear, for the next process too, and takes new entries after it', async () => {
      await harness.journal.append(journaled(1));
      await harness.journal.clear();
      expect((await harness.journal.read()).entries).to.deep.equal([]);
      expect((await (await harness.reopen()).read()).entries).to.deep.equal([]);
      await harness.journal.append(journaled(2));
      expect((await harness.journal.read()).entries).to.deep.equal([journaled(2)]);
    });

    it('keeps what an earlier process appended when a later one appends more', async () => {
      await harness.journal.append(journaled(1));
      const later = await harness.reopen();
      await later.append(journaled(2));
      expect((await later.read()).entries).to.deep.equal([journaled(1), journaled(2)]);
    });
  });
};
