import { expect } from 'chai';
import { NodeApiKeyCrypto } from '../../../src/adapters/crypto/node-api-key-crypto.js';
import { API_KEY_LENGTH, displayPrefix, isWellFormedApiKey } from '../../../src/domain/auth/api-key-format.js';

describe('NodeApiKeyCrypto', () => {
  const crypto = new NodeApiKeyCrypto();

  describe('#mint', () => {
    it('makes agw_ keys of 43 base64url characters that pass the format check', () => {
      const key = crypto.mint();
      expect(key).to.match(/^agw_[A-Za-z0-9_-]{43}$/);
      expect(key).to.have.length(API_KEY_LENGTH);
      expect(isWellFormedApiKey(key)).to.equal(true);
    });

    it('never makes the same key twice', () => {
      const keys = new Set(Array.from({ length: 1000 }, () => crypto.mint()));
      expect(keys.size).to.equal(1000);
    });
  });

  describe('#secret', () => {
    it("makes 43 base64url characters (32 random bytes), within the Bot API's secret_token rule, never twice the same", () => {
      const secrets = Array.from({ length: 1000 }, () => crypto.secret());
      for (const secret of secrets) expect(secret).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(secrets[0], 'base64url')).to.have.length(32);
      expect(new Set(secrets).size).to.equal(1000);
    });
  });

  describe('#digest', () => {
    it('is the lower-case hex SHA-256 of the key', () => {
      // sha256("abc"), the FIPS 180-2 test vector
      expect(crypto.digest('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    });

    it('is deterministic and differs for keys one character apart', () => {
      const key = crypto.mint();
      expect(crypto.digest(key)).to.equal(crypto.digest(key));
      expect(crypto.digest(key)).not.to.equal(crypto.digest(`${key}x`));
    });
  });

  describe('#equal', () => {
    const key = `agw_${'A'.repeat(43)}`;
    const digest = crypto.digest(key);

    it('matches the same digest', () => {
      expect(crypto.equal(digest, crypto.digest(key))).to.equal(true);
    });

    it('rejects the digest of a prefix of the key', () => {
      expect(crypto.equal(crypto.digest(key.slice(0, -1)), digest)).to.equal(false);
    });

    it('rejects the digest of the key plus a character', () => {
      expect(crypto.equal(crypto.digest(`${key}A`), digest)).to.equal(false);
    });

    it('rejects raw values that are a prefix of the stored value or longer than it', () => {
      expect(crypto.equal(digest.slice(0, 10), digest)).to.equal(false);
      expect(crypto.equal(`${digest}0`, digest)).to.equal(false);
    });

    it('never matches an empty value, even against another empty value', () => {
      expect(crypto.equal('', digest)).to.equal(false);
      expect(crypto.equal(digest, '')).to.equal(false);
      expect(crypto.equal('', '')).to.equal(false);
    });
  });
});

describe('apiKeyFormat', () => {
  it('refuses values that are not keys before any lookup', () => {
    for (const value of ['', 'agw_', 'agw_short', `agw_${'A'.repeat(42)}`, `agw_${'A'.repeat(44)}`, `xyz_${'A'.repeat(43)}`, `agw_${'A'.repeat(42)}=`]) {
      expect(isWellFormedApiKey(value), value).to.equal(false);
    }
  });

  it('shows agw_ and four characters as the display prefix', () => {
    expect(displayPrefix(`agw_abcd${'A'.repeat(39)}`)).to.equal('agw_abcd');
  });
});
