import { ScryptPasswordHasher } from '../../src/adapters/crypto/scrypt-password-hasher.js';
import { describePasswordHasherContract, type PasswordHasherHarness } from './password-hasher.contract.js';

/** `scrypt$N$r$p$salt$digest`, damaged one field at a time. */
const damagedScrypt = (stored: string): Record<string, string> => {
  const [, n, r, p, salt, digest] = stored.split('$');
  const hash = (...fields: string[]) => fields.join('$');
  return {
    'another scheme': hash('bcrypt', n, r, p, salt, digest),
    'no digest': hash('scrypt', n, r, p, salt),
    'an empty digest': hash('scrypt', n, r, p, salt, ''),
    'no salt': hash('scrypt', n, r, p, '', digest),
    'no parameters': hash('scrypt', salt, digest),
    'a cost that is not a number': hash('scrypt', 'abc', r, p, salt, digest),
    'a cost that is not a power of two': hash('scrypt', '1000', r, p, salt, digest),
    'a digest cut short': hash('scrypt', n, r, p, salt, (digest ?? '').slice(0, 8)),
    'a digest that decodes to no bytes': hash('scrypt', n, r, p, salt, '!!'),
  };
};

const SHORT_DIGEST =
  'verify derives a key as long as the stored digest, so a shortened digest still verifies (the right password, and any password when it decodes to no bytes, as `…$!!` does)';
const BAD_COST = 'verify passes the stored cost to scrypt unchecked, and rejects (ERR_OUT_OF_RANGE, "Invalid scrypt params") instead of answering false';

const scrypt = (cost: number, other: number): PasswordHasherHarness => ({
  make: () => new ScryptPasswordHasher(cost),
  reconfigured: () => new ScryptPasswordHasher(other),
  damaged: damagedScrypt,
});

const pending = {
  'a cost that is not a number': BAD_COST,
  'a cost that is not a power of two': BAD_COST,
  'a digest cut short': SHORT_DIGEST,
  'a digest that decodes to no bytes': SHORT_DIGEST,
};

describePasswordHasherContract("scrypt at the service's cost (2^15)", scrypt(2 ** 15, 2 ** 10), { pending });
describePasswordHasherContract('scrypt at the low cost the unit tests use (2^10)', scrypt(2 ** 10, 2 ** 15), { pending });
