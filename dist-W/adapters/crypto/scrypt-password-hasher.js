import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
const derive = (password, salt, length, options) => new Promise((resolve, reject) => scrypt(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))));
/** scrypt (N=2^15, r=8, p=1, 32-byte digest, 16-byte salt), stored as `scrypt$N$r$p$salt$digest` in base64url. */
export class ScryptPasswordHasher {
    cost;
    constructor(cost = 2 ** 15) {
        this.cost = cost;
    }
    async hash(password) {
        const salt = randomBytes(16);
        const key = await derive(password, salt, 32, { N: this.cost, r: 8, p: 1, maxmem: 128 * this.cost * 8 * 2 });
        return ['scrypt', this.cost, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
    }
    async verify(password, stored) {
        const [scheme, n, r, p, salt, digest] = stored.split('$');
        if (scheme !== 'scrypt' || !salt || !digest)
            return false;
        const N = Number(n);
        const expected = Buffer.from(digest, 'base64url');
        const key = await derive(password, Buffer.from(salt, 'base64url'), expected.length, { N, r: Number(r), p: Number(p), maxmem: 128 * N * Number(r) * 2 });
        return key.length === expected.length && timingSafeEqual(key, expected);
    }
}
//# sourceMappingURL=scrypt-password-hasher.js.map