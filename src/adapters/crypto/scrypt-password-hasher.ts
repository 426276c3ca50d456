import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { PasswordHasher } from '../../ports/password-hasher.js';

const derive = (password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) => scrypt(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))));

const DIGEST_BYTES = 32;

/** scrypt (N=2^15, r=8, p=1, 32-byte digest, 16-byte salt), stored as `scrypt$N$r$p$salt$digest` in base64url. */
export class ScryptPasswordHasher implements PasswordHasher {
  constructor(private readonly cost: number = 2 ** 15) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await derive(password, salt, DIGEST_BYTES, { N: this.cost, r: 8, p: 1, maxmem: 128 * this.cost * 8 * 2 });
    return ['scrypt', this.cost, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  /**
   * False for anything that is not a hash `hash` could have made: another scheme, a digest that
   * is not 32 bytes (a short one would lower the bar; an empty one matched every password),
   * parameters other than hash()'s (r 8, p 1), a cost that is not a power of two or above this
   * hasher's (or 2^17) —
   * never a throw, and never a scrypt run with parameters a stored value chose unchecked.
   */
  async verify(password: string, stored: string): Promise<boolean> {
    const parts = stored.split('$');
    if (parts.length !== 6) return false;
    const [scheme, n, r, p, salt, digest] = parts;
    if (scheme !== 'scrypt' || !/^[A-Za-z0-9_-]+$/.test(salt) || !/^[A-Za-z0-9_-]+$/.test(digest)) return false;
    const [N, R, P] = [n, r, p].map((value) => (/^[1-9][0-9]{0,7}$/.test(value) ? Number(value) : Number.NaN));
    // r and p as hash() writes them, and a cost no higher than this hasher's (or 2^17): a stored
    // value cannot make a login attempt cost gigabytes and seconds.
    if (!(N >= 2 && N <= Math.max(this.cost, 2 ** 17) && (N & (N - 1)) === 0) || R !== 8 || P !== 1) return false;
    const expected = Buffer.from(digest, 'base64url');
    if (expected.length !== DIGEST_BYTES) return false;
    try {
      const key = await derive(password, Buffer.from(salt, 'base64url'), DIGEST_BYTES, { N, r: R, p: P, maxmem: 128 * N * R * 2 });
      return timingSafeEqual(key, expected);
    } catch {
      return false;
    }
  }
}
