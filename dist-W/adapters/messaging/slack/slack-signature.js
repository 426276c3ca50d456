import { createHmac, timingSafeEqual } from 'node:crypto';
export const SIGNATURE_HEADER = 'x-slack-signature';
export const TIMESTAMP_HEADER = 'x-slack-request-timestamp';
/** Slack's advice: a request whose timestamp is further than this from now is a replay. */
export const MAX_AGE_SECONDS = 5 * 60;
const SIGNATURE_SHAPE = /^v0=[0-9a-f]{64}$/;
const TIMESTAMP_SHAPE = /^\d{1,12}$/;
/**
 * What the headers alone tell: a `v0=` signature of the right form, and a timestamp (unix
 * seconds) within five minutes of `now`, either way.
 */
export const signatureHeadersPass = (headers, now) => {
    const signature = headers[SIGNATURE_HEADER];
    const timestamp = headers[TIMESTAMP_HEADER];
    if (signature === undefined || timestamp === undefined || !SIGNATURE_SHAPE.test(signature) || !TIMESTAMP_SHAPE.test(timestamp))
        return false;
    return Math.abs(now.getTime() / 1000 - Number(timestamp)) <= MAX_AGE_SECONDS;
};
/** `v0=` and the hex HMAC-SHA256, keyed with the signing secret, of `v0:<timestamp>:<raw body>` (Slack's request signing). */
export const slackSignature = (secret, timestamp, rawBody) => `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
/** The whole check: the headers' and the signature over the raw body, compared in constant time. */
export const signatureMatches = (headers, rawBody, secret, now) => {
    if (!signatureHeadersPass(headers, now))
        return false;
    const expected = Buffer.from(slackSignature(secret, headers[TIMESTAMP_HEADER], rawBody), 'utf8');
    const given = Buffer.from(headers[SIGNATURE_HEADER], 'utf8');
    // Both are `v0=` and 64 hex digits (the form was checked): equal lengths.
    return given.length === expected.length && timingSafeEqual(given, expected);
};
//# sourceMappingURL=slack-signature.js.map