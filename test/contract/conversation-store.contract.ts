import { expect } from 'chai';
import type { ConversationStore } from '../../src/ports/conversation-store.js';

export interface ConversationStoreHarness {
  readonly store: ConversationStore;
  /** Dates every turn of the thread at `at`, as if appended then (behind the store's back). */
  backdate(threadId: string, at: Date): Promise<void>;
  /** Forgets every thread. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** The behaviour every ConversationStore adapter must have. */
export const describeConversationStoreContract = (name: string, open: () => Promise<ConversationStoreHarness>): void => {
  describe(`ConversationStore contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: ConversationStoreHarness;
    before(async () => {
      harness = await open();
    });
    beforeEach(async () => harness.reset());
    after(async () => harness?.close());

    it('gives an unknown thread no turns', async () => {
      expect(await harness.store.recent('telegram:1', 20)).to.deep.equal([]);
    });

    it('returns the turns oldest first, as appended, with their text intact', async () => {
      const { store } = harness;
      const long = 'x'.repeat(20_000);
      await store.append('telegram:1', [
        { role: 'user', text: 'hello ✓ ünïcode 🎉' },
        { role: 'assistant', text: 'it\'s "quoted" -- and ; semicolons $1 ?' },
      ]);
      await store.append('telegram:1', [{ role: 'user', text: long }]);
      expect(await store.recent('telegram:1', 20)).to.deep.equal([
        { role: 'user', text: 'hello ✓ ünïcode 🎉' },
        { role: 'assistant', text: 'it\'s "quoted" -- and ; semicolons $1 ?' },
        { role: 'user', text: long },
      ]);
    });

    it('keeps a turn whose text holds a NUL or lone surrogates, each replaced by U+FFFD (the rest intact)', async () => {
      const { store } = harness;
      await store.append('telegram:1', [
        { role: 'user', text: 'a\u0000b \uD83D c \uDE00 d 🎉' },
        { role: 'assistant', text: 'fine' },
      ]);
      expect(await store.recent('telegram:1', 20)).to.deep.equal([
        { role: 'user', text: 'a\uFFFDb \uFFFD c \uFFFD d 🎉' },
        { role: 'assistant', text: 'fine' },
      ]);
    });

    it('returns only the last `limit` turns, still oldest first', async () => {
      const { store } = harness;
      for (let i = 1; i <= 10; i++) await store.append('telegram:1', [{ role: i % 2 ? 'user' : 'assistant', text: `turn ${i}` }]);
      expect((await store.recent('telegram:1', 3)).map((t) => t.text)).to.deep.equal(['turn 8', 'turn 9', 'turn 10']);
    });

    it('keeps threads apart, and clear forgets only its thread', async () => {
      const { store } = harness;
      await store.append('telegram:1', [{ role: 'user', text: 'one' }]);
      await store.append('telegram:2', [{ role: 'user', text: 'two' }]);
      await store.append('web:1', [{ role: 'user', text: 'web' }]);
      await store.clear('telegram:1');
      expect(await store.recent('telegram:1', 20)).to.deep.equal([]);
      expect(await store.recent('telegram:2', 20)).to.deep.equal([{ role: 'user', text: 'two' }]);
      expect(await store.recent('web:1', 20)).to.deep.equal([{ role: 'user', text: 'web' }]);
    });

    it('keeps the order of turns appended by many threads at once', async () => {
      const { store } = harness;
      await Promise.all(
        Array.from({ length: 20 }, (_, t) =>
          (async () => {
            for (let i = 0; i < 5; i++)
              await store.append(`telegram:${t}`, [
                { role: 'user', text: `${t}.${i}.q` },
                { role: 'assistant', text: `${t}.${i}.a` },
              ]);
          })(),
        ),
      );
      for (let t = 0; t < 20; t++) {
        const expected = Array.from({ length: 5 }, (_, i) => [`${t}.${i}.q`, `${t}.${i}.a`]).flat();
        expect((await store.recent(`telegram:${t}`, 100)).map((turn) => turn.text)).to.deep.equal(expected);
      }
    });

    it('a read after each exchange sees every turn so far, also past the limit and after a clear', async () => {
      const { store } = harness;
      const all: string[] = [];
      for (let i = 0; i < 6; i++) {
        expect((await store.recent('telegram:1', 3)).map((t) => t.text)).to.deep.equal(all.slice(-3));
        expect((await store.recent('telegram:1', 50)).map((t) => t.text)).to.deep.equal(all);
        await store.append('telegram:1', [
          { role: 'user', text: `q${i}` },
          { role: 'assistant', text: `a${i}` },
        ]);
        all.push(`q${i}`, `a${i}`);
      }
      expect((await store.recent('telegram:1', 50)).map((t) => t.text)).to.deep.equal(all);
      await store.clear('telegram:1');
      expect(await store.recent('telegram:1', 3)).to.deep.equal([]);
      await store.append('telegram:1', [{ role: 'user', text: 'fresh' }]);
      expect(await store.recent('telegram:1', 3)).to.deep.equal([{ role: 'user', text: 'fresh' }]);
    });

    it('deletes turns appended before a cutoff in bounded batches, oldest first, keeping later ones', async () => {
      const { store } = harness;
      const day = 86_400_000;
      const turn = (text: string) => ({ role: 'user' as const, text });
      await store.append('telegram:old', [turn('old q'), turn('old a')]);
      await store.append('telegram:older', [turn('older')]);
      await store.append('telegram:new', [turn('new')]);
      await store.append('telegram:mixed', [turn('mixed early')]);
      await harness.backdate('telegram:older', new Date(Date.now() - 10 * day));
      await harness.backdate('telegram:mixed', new Date(Date.now() - 8 * day));
      await harness.backdate('telegram:old', new Date(Date.now() - 5 * day));
      await store.append('telegram:mixed', [turn('mixed late')]);
      const cutoff = new Date(Date.now() - day);
      expect(await store.deleteOlderThan(cutoff, 2)).to.equal(2);
      expect(await store.recent('telegram:older', 10)).to.deep.equal([]);
      expect(await store.recent('telegram:mixed', 10)).to.deep.equal([turn('mixed late')]);
      expect(await store.recent('telegram:old', 10)).to.deep.equal([turn('old q'), turn('old a')]);
      expect(await store.deleteOlderThan(cutoff, 2)).to.equal(2);
      expect(await store.deleteOlderThan(cutoff, 2)).to.equal(0);
      expect(await store.recent('telegram:old', 10)).to.deep.equal([]);
      expect(await store.recent('telegram:new', 10)).to.deep.equal([turn('new')]);
    });

    it("stores an answer's exchange once: an append of a key stored before stores nothing and gives the stored answer", async () => {
      const { store } = harness;
      const exchange = (question: string, answer: string) => [
        { role: 'user' as const, text: question },
        { role: 'assistant' as const, text: answer },
      ];
      expect(await store.answerOf('telegram:1', 'task:a')).to.equal(undefined);
      expect(await store.appendAnswer('telegram:1', exchange('fix it', 'Started job 1.'), 'task:a')).to.deep.equal({ stored: true, answer: 'Started job 1.' });
      expect(await store.recent('telegram:1', 20)).to.have.length(2); // read once, so that a cache holds the thread
      expect(await store.appendAnswer('telegram:1', exchange('fix it', 'Started job 1, worded anew.'), 'task:a')).to.deep.equal({
        stored: false,
        answer: 'Started job 1.',
      });
      expect(await store.answerOf('telegram:1', 'task:a')).to.equal('Started job 1.');
      await store.append('telegram:1', [{ role: 'user', text: 'thanks' }]);
      expect(await store.appendAnswer('telegram:1', exchange('and the docs', 'Done\u0000.'), 'task:b')).to.deep.equal({ stored: true, answer: 'Done\ufffd.' });
      expect(await store.recent('telegram:1', 20)).to.deep.equal([
        ...exchange('fix it', 'Started job 1.'),
        { role: 'user', text: 'thanks' },
        ...exchange('and the docs', 'Done\ufffd.'),
      ]);
      expect(await store.answerOf('telegram:2', 'task:c')).to.equal(undefined);
    });

    it('of appends of one answer at once, exactly one stores its exchange; every one gets its answer', async () => {
      const { store } = harness;
      const results = await Promise.all(
        ['one', 'two', 'three'].map((n) =>
          store.appendAnswer(
            'telegram:1',
            [
              { role: 'user', text: 'fix it' },
              { role: 'assistant', text: `answer ${n}` },
            ],
            'task:same',
          ),
        ),
      );
      expect(results.filter((result) => result.stored)).to.have.length(1);
      const answer = (await store.answerOf('telegram:1', 'task:same')) as string;
      expect(results.map((result) => result.answer)).to.deep.equal([answer, answer, answer]);
      expect(await store.recent('telegram:1', 20)).to.deep.equal([
        { role: 'user', text: 'fix it' },
        { role: 'assistant', text: answer },
      ]);
    });

    it('appending no turns changes nothing', async () => {
      const { store } = harness;
      await store.append('telegram:1', [{ role: 'user', text: 'a' }]);
      await store.append('telegram:1', []);
      expect(await store.recent('telegram:1', 20)).to.deep.equal([{ role: 'user', text: 'a' }]);
    });
  });
};
