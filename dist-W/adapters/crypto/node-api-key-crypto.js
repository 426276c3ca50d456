import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { API_KEY_PREFIX, API_KEY_RANDOM_BYTES } from '../../domain/auth/api-key-format.js';
const SECRET_BYTES = 32;
/** API key cryptography on node:crypto: CSPRNG keys, SHA-256 digests, `timingSafeEqual`. */
export class NodeApiKeyCrypto {
    mint() {
        return API_KEY_PREFIX + randomBytes(API_KEY_RANDOM_BYTES).toString('base64url');
    }
    secret() {
        return randomBytes(SECRET_BYTES).toString('base64url');
    }
    digest(key) {
        // One-shot hash: no Hash object per request (this runs on every authenticated call).
        return hash('sha256', key, 'hex');
    }
    equal(a, b) {
        if (a.length === 0 || b.length === 0)
            return false;
        const left = Buffer.from(a, 'utf8');
        const right = Buffer.from(b, 'utf8');
        // timingSafeEqual needs equal lengths; unequal lengths are simply unequal.
        return left.length === right.length && timingSafeEqual(left, right);
    }
}
//# sourceMappingURL=node-api-key-crypto.js.map