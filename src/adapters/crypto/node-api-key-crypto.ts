import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { API_KEY_PREFIX, API_KEY_RANDOM_BYTES } from '../../domain/auth/api-key-format.js';
import type { ApiKeyCrypto } from '../../ports/api-key-crypto.js';

const SECRET_BYTES = 32;

/** API key cryptography on node:crypto: CSPRNG keys, SHA-256 digests, `timingSafeEqual`. */
export class NodeApiKeyCrypto implements ApiKeyCrypto {
  mint(): string {
    return API_KEY_PREFIX + randomBytes(API_KEY_RANDOM_BYTES).toString('base64url');
  }

  secret(): string {
    return randomBytes(SECRET_BYTES).toString('base64url');
  }

  digest(key: string): string {
    // One-shot hash: no Hash object per request (this runs on every authenticated call).
    return hash('sha256', key, 'hex');
  }

  equal(a: string, b: string): boolean {
    if (a.length === 0 || b.length === 0) return false;
    const left = Buffer.from(a, 'utf8');
    const right = Buffer.from(b, 'utf8');
    // timingSafeEqual needs equal lengths; unequal lengths are simply unequal.
    return left.length === right.length && timingSafeEqual(left, right);
  }
}
