import { expect } from 'chai';
import type { PasswordHasher } from '../../src/ports/password-hasher.js';

export interface PasswordHasherHarness {
  make(): PasswordHasher;
  /** The same adapter with other parameters (a cost raised since a hash was stored). */
  reconfigured(): PasswordHasher;
  /** Damaged copies of a hash it made, by what is wrong with them (another scheme, a field missing…). */
  damaged(stored: string): Record<string, string>;
}

const PASSWORD = 'correct horse battery staple';

/**
 * The behaviour every PasswordHasher adapter must have. (That verify compares in constant time is
 * the adapter's to keep and a reviewer's to check: a test cannot measure it reliably.)
 */
export const describePasswordHasherContract = (name: string, harness: PasswordHasherHarness): void => {
  describe(`PasswordHasher contract: ${name}`, function () {
    this.timeout(60_000);
    let hasher: PasswordHasher;
    let stored: string;
    before(async () => {
      hasher = harness.make();
      stored = await hasher.hash(PASSWORD);
    });

    it('verifies the password it hashed', async () => {
      expect(await hasher.verify(PASSWORD, stored)).to.equal(true);
    });

    it('refuses every other password: one character off, a prefix, one character more, other case, surrounding space, empty', async () => {
      const others = [`${PASSWORD.slice(0, -1)}f`, PASSWORD.slice(0, -1), `${PASSWORD}!`, PASSWORD.toUpperCase(), ` ${PASSWORD}`, `${PASSWORD}\n`, ''];
      for (const other of others) expect(await hasher.verify(other, stored), JSON.stringify(other)).to.equal(false);
    });

    it('hashes the same password differently each time (salted), and every one of the hashes verifies it', async () => {
      const again = await hasher.hash(PASSWORD);
      expect(again).not.to.equal(stored);
      expect(await hasher.verify(PASSWORD, again)).to.equal(true);
    });

    it('keeps no trace of the password in the hash', async () => {
      expect(stored).not.to.contain(PASSWORD);
      expect(stored).not.to.contain(Buffer.from(PASSWORD).toString('base64url'));
      expect(stored).not.to.contain(Buffer.from(PASSWORD).toString('hex'));
    });

    it('needs nothing but the stored hash: another instance, or one with other parameters, verifies it', async () => {
      expect(await harness.make().verify(PASSWORD, stored)).to.equal(true);
      expect(await harness.reconfigured().verify(PASSWORD, stored)).to.equal(true);
      expect(await harness.reconfigured().verify(`${PASSWORD}!`, stored)).to.equal(false);
    });

    it('tells apart long passwords that differ only at their end, and passwords beyond ASCII', async () => {
      const long = 'x'.repeat(500);
      const longHash = await hasher.hash(`${long}a`);
      expect(await hasher.verify(`${long}a`, longHash)).to.equal(true);
      expect(await hasher.verify(`${long}b`, longHash), 'differs at character 501').to.equal(false);
      const unicode = await hasher.hash('pässwörd 🔑');
      expect(await hasher.verify('pässwörd 🔑', unicode)).to.equal(true);
      expect(await hasher.verify('passwort 🔑', unicode)).to.equal(false);
      expect(await hasher.verify('pässwörd', unicode)).to.equal(false);
    });

    it('answers false, without throwing, for a stored value that is no hash: empty, garbage, the password in clear', async () => {
      for (const value of ['', 'not a hash', PASSWORD, '$$$$$']) {
        expect(await hasher.verify(PASSWORD, value), JSON.stringify(value)).to.equal(false);
        expect(await hasher.verify('', value), `the empty password against ${JSON.stringify(value)}`).to.equal(false);
      }
    });

    const damages = Object.keys(harness.damaged(''));
    it(`answers false, without throwing, for a damaged hash (${damages.join('; ')}), whatever the password`, async () => {
      for (const damage of damages) {
        const value = harness.damaged(stored)[damage];
        for (const password of [PASSWORD, 'another password', '']) {
          const answer = await hasher.verify(password, value).catch((error: unknown) => `thrown: ${(error as Error).message}`);
          expect(answer, `${damage}: ${JSON.stringify(value)}, password ${JSON.stringify(password)}`).to.equal(false);
        }
      }
    });
  });
};
