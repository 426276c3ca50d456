import { expect } from 'chai';
import type { WebhookSignatureVerifier } from '../../src/ports/webhook-signature-verifier.js';

/** A platform's signature scheme, as the contract needs it to play the platform. */
export interface SignatureScheme {
  /** The adapter holding this shared secret; undefined: none is configured. */
  verifier(secret: string | undefined): WebhookSignatureVerifier;
  /** The platform's signature header for `body` under `secret`, computed without the adapter. */
  sign(secret: string, body: Buffer): string;
  /** Header values in a form the platform never sends (another algorithm, no prefix, wrong alphabet…). */
  readonly malformed: readonly string[];
  /** The platform's published test vector, when it has one. */
  readonly vector?: { readonly secret: string; readonly body: Buffer; readonly signature: string };
}

const SECRET = 'contract-webhook-secret';
const JSON_BODY = Buffer.from('{"ref":"refs/heads/job/1","after":"0123abc","repository":{"full_name":"o/r"}}');
/** Bytes that are not UTF-8 text: a verifier works on the bytes, never on a decoded string. */
const BINARY_BODY = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x7b, 0x22, 0xc3, 0x28, 0x0a]);
/** JSON-looking bodies whose bytes are not UTF-8, as a fuzzer or a misconfigured sender posts them. */
const NOT_UTF8_BODIES: Readonly<Record<string, Buffer>> = {
  'Latin-1': Buffer.from('{"job":"r\xe9sum\xe9"}', 'latin1'),
  'an encoded lone surrogate (ED A0 BD)': Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0xbd, 0x22, 0x7d]),
  'an overlong "/" (C0 AF)': Buffer.from([0x22, 0xc0, 0xaf, 0x22]),
  'a cut-off sequence (E2 82)': Buffer.from([0x22, 0xe2, 0x82]),
  'UTF-16LE with its byte order mark': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"a":1}', 'utf16le')]),
  'UTF-16LE without one': Buffer.from('{"a":1}', 'utf16le'),
  'a UTF-8 byte order mark': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]),
};

/**
 * The behaviour every WebhookSignatureVerifier adapter must have: an HMAC over the exact raw body
 * with the shared secret, refused when anything differs. (That the comparison takes constant
 * time is the adapter's to keep and a reviewer's to check: a test cannot measure it reliably.)
 */
export const describeWebhookSignatureVerifierContract = (name: string, scheme: SignatureScheme): void => {
  describe(`WebhookSignatureVerifier contract: ${name}`, () => {
    const verifier = scheme.verifier(SECRET);

    if (scheme.vector !== undefined) {
      const vector = scheme.vector;
      it("accepts the platform's published test vector", () => {
        expect(scheme.verifier(vector.secret).couldVerify(vector.signature)).to.equal(true);
        expect(scheme.verifier(vector.secret).verify(vector.body, vector.signature)).to.equal(true);
      });
    }

    it('accepts the signature of the exact raw bytes, and lets its header through before the body is read', () => {
      for (const body of [JSON_BODY, BINARY_BODY, Buffer.alloc(0), Buffer.alloc(1024 * 1024, 'a')]) {
        const signature = scheme.sign(SECRET, body);
        expect(verifier.couldVerify(signature), `couldVerify, a body of ${body.length} bytes`).to.equal(true);
        expect(verifier.verify(body, signature), `verify, a body of ${body.length} bytes`).to.equal(true);
      }
    });

    it('verifies bodies that are not UTF-8 over their bytes, refusing the signature of their text decoded and encoded again', () => {
      for (const [what, body] of Object.entries(NOT_UTF8_BODIES)) {
        expect(verifier.verify(body, scheme.sign(SECRET, body)), what).to.equal(true);
        const reencoded = Buffer.from(body.toString('utf8'), 'utf8');
        if (!reencoded.equals(body)) expect(verifier.verify(body, scheme.sign(SECRET, reencoded)), `${what}, re-encoded`).to.equal(false);
      }
    });

    it('gives the same answer every time: a refused request does not change the next one', () => {
      const signature = scheme.sign(SECRET, JSON_BODY);
      expect(verifier.verify(JSON_BODY, scheme.sign('another', JSON_BODY))).to.equal(false);
      expect(verifier.verify(JSON_BODY, signature)).to.equal(true);
      expect(verifier.verify(JSON_BODY, signature)).to.equal(true);
    });

    it('refuses the signature of another body: one byte changed, added or removed, or the same JSON written differently', () => {
      const signature = scheme.sign(SECRET, JSON_BODY);
      const changed = Buffer.from(JSON_BODY);
      changed[changed.length - 2] ^= 0x01;
      const others = [
        changed,
        Buffer.concat([JSON_BODY, Buffer.from('\n')]),
        JSON_BODY.subarray(0, -1),
        JSON_BODY.subarray(1),
        Buffer.from(JSON.stringify(JSON.parse(JSON_BODY.toString('utf8')), null, 2)),
        Buffer.alloc(0),
      ];
      for (const other of others) expect(verifier.verify(other, signature), other.toString('utf8')).to.equal(false);
    });

    it('refuses a signature made with another secret: a different one, one character off, a prefix, the empty secret', () => {
      for (const other of ['another-secret', `${SECRET.slice(0, -1)}X`, SECRET.slice(0, -1), `${SECRET} `, SECRET.toUpperCase(), '']) {
        const signature = scheme.sign(other, JSON_BODY);
        expect(verifier.verify(JSON_BODY, signature), JSON.stringify(other)).to.equal(false);
      }
    });

    it('refuses a missing or empty signature, already before the body is read', () => {
      for (const missing of [undefined, '']) {
        expect(verifier.couldVerify(missing), String(missing)).to.equal(false);
        expect(verifier.verify(JSON_BODY, missing), String(missing)).to.equal(false);
      }
    });

    it('refuses a malformed signature before the body is read, and after it without throwing', () => {
      const right = scheme.sign(SECRET, JSON_BODY);
      const malformed = [
        ...scheme.malformed,
        right.slice(0, -1),
        `${right}0`,
        ` ${right}`,
        `${right}\n`,
        `${right}${right}`,
        'garbage',
        // as many bytes as the right one, but not ASCII
        'é'.repeat(Buffer.byteLength(right) / 2),
      ];
      for (const signature of malformed) {
        expect(verifier.couldVerify(signature), `couldVerify ${JSON.stringify(signature)}`).to.equal(false);
        expect(verifier.verify(JSON_BODY, signature), `verify ${JSON.stringify(signature)}`).to.equal(false);
      }
    });

    it('does not refuse a well-formed but wrong signature before the body is read (only verify can tell)', () => {
      const wrong = scheme.sign('another-secret', JSON_BODY);
      expect(verifier.couldVerify(wrong)).to.equal(true);
      expect(verifier.verify(JSON_BODY, wrong)).to.equal(false);
    });

    it('refuses everything when no secret is configured (none, or an empty one), even a signature made with the empty secret', () => {
      for (const unset of [undefined, '']) {
        const unconfigured = scheme.verifier(unset);
        for (const signature of [scheme.sign('', JSON_BODY), scheme.sign(SECRET, JSON_BODY)]) {
          expect(unconfigured.couldVerify(signature), `couldVerify, secret ${JSON.stringify(unset)}`).to.equal(false);
          expect(unconfigured.verify(JSON_BODY, signature), `verify, secret ${JSON.stringify(unset)}`).to.equal(false);
        }
        expect(unconfigured.verify(JSON_BODY, undefined)).to.equal(false);
      }
    });
  });
};
