import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { API_KEY_LENGTH, isWellFormedApiKey } from '../../src/domain/auth/api-key-format.js';
import type { ApiKeyCrypto } from '../../src/ports/api-key-crypto.js';

/** SHA-256 in lower-case hex of the UTF-8 bytes, computed here without the adapter. */
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The behaviour every ApiKeyCrypto adapter must have. Digests are stored (API keys, session
 * tokens, request fingerprints), so their form is fixed: another instance, another replica or
 * the next release must find them. (That `equal` takes constant time is the adapter's to keep
 * and a reviewer's to check: a test cannot measure it reliably.)
 */
export const describeApiKeyCryptoContract = (name: string, make: () => ApiKeyCrypto): void => {
  describe(`ApiKeyCrypto contract: ${name}`, () => {
    let crypto: ApiKeyCrypto;
    beforeEach(() => {
      crypto = make();
    });

    it('mints keys of the API key format, which the format check lets through', () => {
      const key = crypto.mint();
      expect(key).to.match(/^agw_[A-Za-z0-9_-]{43}$/);
      expect(key).to.have.length(API_KEY_LENGTH);
      expect(isWellFormedApiKey(key)).to.equal(true);
    });

    it('never mints the same key twice, nor one another instance minted', () => {
      const keys = [...Array.from({ length: 500 }, () => crypto.mint()), ...Array.from({ length: 500 }, () => make().mint())];
      expect(new Set(keys).size).to.equal(1000);
    });

    it('makes shared secrets of 32 random bytes in base64url (43 characters of A-Za-z0-9_-), never twice the same', () => {
      const secrets = Array.from({ length: 500 }, () => crypto.secret());
      for (const secret of secrets) expect(secret).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(secrets[0], 'base64url')).to.have.length(32);
      expect(new Set(secrets).size).to.equal(500);
    });

    it('digests to the lower-case hex SHA-256 of the UTF-8 text, the same in every instance', () => {
      // sha256("abc"), the FIPS 180-2 test vector
      expect(crypto.digest('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
      const key = crypto.mint();
      for (const text of [key, '', '{"job":"Fix it","émoji":"🔑"}', 'x'.repeat(100_000)]) {
        expect(crypto.digest(text), text.slice(0, 40)).to.equal(sha256(text));
        expect(make().digest(text), 'another instance').to.equal(crypto.digest(text));
      }
    });

    it('digests keys one character apart to different digests', () => {
      const key = crypto.mint();
      const digests = [key, `${key}A`, key.slice(0, -1), `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`].map((text) => crypto.digest(text));
      expect(new Set(digests).size).to.equal(4);
    });

    it('finds a digest equal to the same digest', () => {
      const key = crypto.mint();
      expect(crypto.equal(crypto.digest(key), make().digest(key))).to.equal(true);
    });

    it('finds digests of other keys unequal, and a digest unequal to its prefix, to itself lengthened, or in upper case', () => {
      const key = crypto.mint();
      const digest = crypto.digest(key);
      expect(crypto.equal(crypto.digest(`${key}A`), digest)).to.equal(false);
      expect(crypto.equal(crypto.digest(key.slice(0, -1)), digest)).to.equal(false);
      expect(crypto.equal(digest.slice(0, 10), digest)).to.equal(false);
      expect(crypto.equal(digest, digest.slice(0, -1))).to.equal(false);
      expect(crypto.equal(`${digest}0`, digest)).to.equal(false);
      expect(crypto.equal(digest.toUpperCase(), digest)).to.equal(false);
    });

    it('never finds an empty value equal, not even to another empty value', () => {
      const digest = crypto.digest(crypto.mint());
      expect(crypto.equal('', digest)).to.equal(false);
      expect(crypto.equal(digest, '')).to.equal(false);
      expect(crypto.equal('', '')).to.equal(false);
    });

    it('compares values of different byte lengths, also beyond ASCII, without throwing', () => {
      // as many characters as a digest, more bytes
      const wide = 'é'.repeat(64);
      const digest = crypto.digest('abc');
      expect(crypto.equal(wide, digest)).to.equal(false);
      expect(crypto.equal(digest, wide)).to.equal(false);
      expect(crypto.equal(wide, wide)).to.equal(true);
    });
  });
};
