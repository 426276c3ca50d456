import { createHmac } from 'node:crypto';
import { GithubSignatureVerifier } from '../../src/adapters/codehost/github-signature-verifier.js';
import { describeWebhookSignatureVerifierContract } from './webhook-signature-verifier.contract.js';

const hex = (secret: string, body: Buffer): string => createHmac('sha256', secret).update(body).digest('hex');

describeWebhookSignatureVerifierContract("GitHub's X-Hub-Signature-256", {
  verifier: (secret) => new GithubSignatureVerifier(secret),
  sign: (secret, body) => `sha256=${hex(secret, body)}`,
  malformed: [
    `sha1=${'ab'.repeat(20)}`,
    'sha256=',
    'sha256=00',
    `sha256=${'zz'.repeat(32)}`,
    `SHA256=${'ab'.repeat(32)}`,
    `sha256=${'AB'.repeat(32)}`,
    'ab'.repeat(32),
    `sha256:${'ab'.repeat(32)}`,
  ],
  vector: {
    secret: "It's a Secret to Everybody",
    body: Buffer.from('Hello, World!'),
    signature: 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
  },
});
