import { expect } from 'chai';
import type { LoginAttempts } from '../../src/ports/login-attempts.js';

export interface LoginAttemptsHarness {
  readonly attempts: LoginAttempts;
  /** A second adapter on the same store (another replica), when the adapter has one. */
  readonly replica?: LoginAttempts;
  /** Forgets every count. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const WINDOW = 15 * 60_000;
const T0 = new Date('2026-03-01T10:00:00Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);
const client = (name: string): string => name.padStart(64, '0');

/** The behaviour every LoginAttempts adapter must have. */
export const describeLoginAttemptsContract = (name: string, open: () => Promise<LoginAttemptsHarness>, capabilities: { readonly replicas: boolean }): void => {
  describe(`LoginAttempts contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: LoginAttemptsHarness;
    before(async () => {
      harness = await open();
    });
    beforeEach(async () => harness.reset());
    after(async () => harness?.close());

    it('has no window for a client never counted', async () => {
      expect(await harness.attempts.current(client('a'), T0, WINDOW)).to.equal(null);
    });

    it('numbers the attempts of a client within its window from 1 up to the maximum, and reads the window back', async () => {
      const { attempts } = harness;
      const numbers = [];
      for (let i = 0; i < 4; i++) numbers.push((await attempts.take(client('a'), at(i * 1000), WINDOW, 5))?.attempts);
      expect(numbers).to.deep.equal([1, 2, 3, 4]);
      const window = await attempts.current(client('a'), at(5000), WINDOW);
      expect(window?.attempts).to.equal(4);
      expect(window?.endsAt.getTime()).to.equal(T0.getTime() + WINDOW);
      expect((await attempts.take(client('a'), at(5000), WINDOW, 5))?.endsAt.getTime()).to.equal(T0.getTime() + WINDOW);
    });

    it('refuses an attempt once the maximum is counted, changing nothing, until the window ends', async () => {
      const { attempts } = harness;
      for (let i = 0; i < 3; i++) await attempts.take(client('a'), at(i), WINDOW, 3);
      expect(await attempts.take(client('a'), at(10), WINDOW, 3)).to.equal(null);
      expect(await attempts.take(client('a'), at(WINDOW - 1), WINDOW, 3)).to.equal(null);
      expect(await attempts.current(client('a'), at(WINDOW - 1), WINDOW)).to.deep.equal({ attempts: 3, endsAt: at(WINDOW) });
      expect(await attempts.current(client('a'), at(WINDOW), WINDOW)).to.equal(null);
      expect(await attempts.take(client('a'), at(WINDOW), WINDOW, 3)).to.deep.equal({ attempts: 1, endsAt: at(2 * WINDOW) });
    });

    it('reading a window counts nothing', async () => {
      const { attempts } = harness;
      await attempts.take(client('a'), T0, WINDOW, 5);
      for (let i = 0; i < 3; i++) await attempts.current(client('a'), T0, WINDOW);
      expect(await attempts.current(client('b'), T0, WINDOW)).to.equal(null);
      expect((await attempts.take(client('a'), T0, WINDOW, 5))?.attempts).to.equal(2);
    });

    it('keeps clients apart', async () => {
      const { attempts } = harness;
      await attempts.take(client('a'), T0, WINDOW, 2);
      await attempts.take(client('a'), T0, WINDOW, 2);
      expect((await attempts.take(client('b'), T0, WINDOW, 2))?.attempts).to.equal(1);
      expect(await attempts.take(client('a'), T0, WINDOW, 2)).to.equal(null);
      expect((await attempts.current(client('b'), T0, WINDOW))?.attempts).to.equal(1);
    });

    it('starts a new window at the first attempt after the window ended', async () => {
      const { attempts } = harness;
      await attempts.take(client('a'), T0, WINDOW, 5);
      expect((await attempts.take(client('a'), at(WINDOW - 1), WINDOW, 5))?.attempts).to.equal(2);
      expect(await attempts.take(client('a'), at(WINDOW), WINDOW, 5)).to.deep.equal({ attempts: 1, endsAt: at(2 * WINDOW) });
      expect((await attempts.take(client('a'), at(WINDOW + WINDOW - 1), WINDOW, 5))?.attempts).to.equal(2);
    });

    it('starts over after clear, and clearing an unknown client is no error', async () => {
      const { attempts } = harness;
      await attempts.take(client('a'), T0, WINDOW, 2);
      await attempts.take(client('a'), T0, WINDOW, 2);
      await attempts.clear(client('a'));
      await attempts.clear(client('nobody'));
      expect(await attempts.current(client('a'), T0, WINDOW)).to.equal(null);
      expect((await attempts.take(client('a'), T0, WINDOW, 2))?.attempts).to.equal(1);
    });

    it('counts at most the maximum of 100 attempts made at once, numbered 1 to the maximum', async () => {
      const { attempts } = harness;
      const taken = await Promise.all(Array.from({ length: 100 }, () => attempts.take(client('burst'), T0, WINDOW, 5)));
      const numbers = taken.filter((window) => window !== null).map((window) => window.attempts);
      expect(numbers.sort((x, y) => x - y)).to.deep.equal([1, 2, 3, 4, 5]);
      expect((await attempts.current(client('burst'), T0, WINDOW))?.attempts).to.equal(5);
    });

    it('gives 100 attempts made at once under a higher maximum distinct numbers 1 to 100', async () => {
      const { attempts } = harness;
      const taken = await Promise.all(Array.from({ length: 100 }, () => attempts.take(client('burst'), T0, WINDOW, 1000)));
      expect(taken.map((window) => window?.attempts ?? 0).sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 100 }, (_, i) => i + 1));
    });

    it("leaves other clients' ended windows to deleteEnded", async () => {
      const { attempts } = harness;
      await attempts.take(client('a'), T0, WINDOW, 5);
      await attempts.take(client('b'), at(WINDOW + 1000), WINDOW, 5);
      expect(await attempts.deleteEnded(at(WINDOW + 1000), WINDOW, 10)).to.equal(1);
    });

    it('deletes ended windows in bounded batches, oldest first, keeping current ones', async () => {
      const { attempts } = harness;
      await attempts.take(client('a'), T0, WINDOW, 5);
      await attempts.take(client('b'), at(1000), WINDOW, 5);
      await attempts.take(client('c'), at(WINDOW), WINDOW, 5);
      const later = at(WINDOW + 1000);
      expect(await attempts.deleteEnded(later, WINDOW, 1)).to.equal(1);
      // Read as of a moment when both windows were open: a (the oldest) is gone, b is kept.
      expect(await attempts.current(client('a'), at(3000), WINDOW)).to.equal(null);
      expect((await attempts.current(client('b'), at(3000), WINDOW))?.attempts).to.equal(1);
      expect(await attempts.deleteEnded(later, WINDOW, 10)).to.equal(1);
      expect(await attempts.deleteEnded(later, WINDOW, 10)).to.equal(0);
      expect((await attempts.current(client('c'), later, WINDOW))?.attempts).to.equal(1);
    });

    if (!capabilities.replicas) return;

    it('counts attempts made through another replica in the same window, to the same maximum', async () => {
      const { attempts } = harness;
      const replica = harness.replica!;
      const numbers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? attempts : replica).take(client('both'), T0, WINDOW, 1000)));
      expect(numbers.map((window) => window?.attempts ?? 0).sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
      const capped = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? attempts : replica).take(client('capped'), T0, WINDOW, 5)));
      expect(capped.filter((window) => window !== null)).to.have.length(5);
      expect((await replica.current(client('capped'), T0, WINDOW))?.attempts).to.equal(5);
      await replica.clear(client('both'));
      expect((await attempts.take(client('both'), T0, WINDOW, 1000))?.attempts).to.equal(1);
    });
  });
};
