import { createHmac } from 'node:crypto';
import type { FingerprintKey } from '../../ports/fingerprint-key.js';

/** FingerprintKey on node:crypto: HMAC-SHA-256 under the installation's key (its stored text, UTF-8). */
export class HmacFingerprintKey implements FingerprintKey {
  readonly #key: Buffer;

  constructor(key: string) {
    if (key.length < 32) throw new Error('a fingerprint key needs at least 32 characters');
    this.#key = Buffer.from(key, 'utf8');
  }

  mac(text: string): string {
    return createHmac('sha256', this.#key).update(text, 'utf8').digest('hex');
  }
}
