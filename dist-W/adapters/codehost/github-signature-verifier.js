import { createHmac, timingSafeEqual } from 'node:crypto';
/** `sha256=` and the 64 hex digits of an HMAC-SHA256. */
const SIGNATURE_SHAPE = /^sha256=[0-9a-f]{64}$/;
/** GitHub's scheme: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>`. */
export class GithubSignatureVerifier {
    secret;
    constructor(secret) {
        this.secret = secret;
    }
    couldVerify(signature) {
        return Boolean(this.secret) && signature !== undefined && SIGNATURE_SHAPE.test(signature);
    }
    verify(rawBody, signature) {
        if (!this.secret || !signature?.startsWith('sha256='))
            return false;
        const expected = Buffer.from(`sha256=${createHmac('sha256', this.secret).update(rawBody).digest('hex')}`, 'utf8');
        const given = Buffer.from(signature, 'utf8');
        return given.length === expected.length && timingSafeEqual(given, expected);
    }
}
//# sourceMappingURL=github-signature-verifier.js.map