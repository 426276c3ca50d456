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

    it('numbers the attempts of a client within its window, from 1', async () => {
      const { attempts } = harness;
      const numbers = [];
      for (let i = 0; i < 4; i++) numbers.push(await attempts.count(client('a'), at(i * 1000), WINDOW));
      expect(numbers).to.deep.equal([1, 2, 3, 4]);
    });

    it('keeps clients apart', async () => {
      const { attempts } = harness;
      await attempts.count(client('a'), T0, WINDOW);
      await attempts.count(client('a'), T0, WINDOW);
      expect(await attempts.count(client('b'), T0, WINDOW)).to.equal(1);
      expect(await attempts.count(client('a'), T0, WINDOW)).to.equal(3);
    });

    it('starts a new window at the first attempt after the window ended', async () => {
      const { attempts } = harness;
      await attempts.count(client('a'), T0, WINDOW);
      expect(await attempts.count(client('a'), at(WINDOW - 1), WINDOW)).to.equal(2);
      expect(await attempts.count(client('a'), at(WINDOW), WINDOW)).to.equal(1);
      expect(await attempts.count(client('a'), at(WINDOW + WINDOW - 1), WINDOW)).to.equal(2);
    });

    it('starts over after clear, and clearing an unknown client is no error', async () => {
      const { attempts } = harness;
      await attempts.count(client('a'), T0, WINDOW);
      await attempts.count(client('a'), T0, WINDOW);
      await attempts.clear(client('a'));
      await attempts.clear(client('nobody'));
      expect(await attempts.count(client('a'), T0, WINDOW)).to.equal(1);
    });

    it('gives 100 attempts made at once distinct numbers 1 to 100', async () => {
      const { attempts } = harness;
      const numbers = await Promise.all(Array.from({ length: 100 }, () => attempts.count(client('burst'), T0, WINDOW)));
      expect([...numbers].sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 100 }, (_, i) => i + 1));
    });

    it('deletes ended windows in bounded batches, oldest first, keeping current ones', async () => {
      const { attempts } = harness;
      await attempts.count(client('a'), T0, WINDOW);
      await attempts.count(client('b'), at(1000), WINDOW);
      await attempts.count(client('c'), at(2000), WINDOW);
      const later = at(WINDOW + 1000);
      expect(await attempts.deleteEnded(later, WINDOW, 1)).to.equal(1);
      expect(await attempts.count(client('a'), at(3000), WINDOW)).to.equal(1);
      expect(await attempts.count(client('b'), at(3000), WINDOW)).to.equal(2);
      expect(await attempts.deleteEnded(later, WINDOW, 10)).to.equal(1);
      expect(await attempts.deleteEnded(later, WINDOW, 10)).to.equal(0);
      expect(await attempts.count(client('c'), at(3000), WINDOW)).to.equal(2);
    });

    if (!capabilities.replicas) return;

    it('counts attempts made through another replica in the same window', async () => {
      const { attempts } = harness;
      const replica = harness.replica!;
      const numbers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? attempts : replica).count(client('both'), T0, WINDOW)));
      expect([...numbers].sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
      await replica.clear(client('both'));
      expect(await attempts.count(client('both'), T0, WINDOW)).to.equal(1);
    });
  });
};
