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
    'a cost far above the service’s (2^20, r 32: gigabytes per attempt)': hash('scrypt', String(2 ** 20), '32', p, salt, digest),
    'another block size': hash('scrypt', n, '16', p, salt, digest),
    'a digest cut short': hash('scrypt', n, r, p, salt, (digest ?? '').slice(0, 8)),
    'a digest that decodes to no bytes': hash('scrypt', n, r, p, salt, '!!'),
  };
};

const scrypt = (cost: number, other: number): PasswordHasherHarness => ({
  make: () => new ScryptPasswordHasher(cost),
  reconfigured: () => new ScryptPasswordHasher(other),
  damaged: damagedScrypt,
});

describePasswordHasherContract("scrypt at the service's cost (2^15)", scrypt(2 ** 15, 2 ** 10));
describePasswordHasherContract('scrypt at the low cost the unit tests use (2^10)', scrypt(2 ** 10, 2 ** 15));
