import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { signatureHeadersPass, signatureMatches, slackSignature } from '../../../../../src/adapters/messaging/slack/slack-signature.js';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const NOW = new Date('2026-01-01T12:00:00Z');
const nowSeconds = Math.floor(NOW.getTime() / 1000);
const RAW = '{"token":"x","type":"event_callback","event_id":"Ev1","event":{"type":"message","text":"héllo & <b>"}}';
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/** The headers Slack sends with a body, signed as its documentation describes (computed here independently). */
const signed = (raw: string, secret = SECRET, timestamp = nowSeconds): Record<string, string> => ({
  'x-slack-request-timestamp': String(timestamp),
  'x-slack-signature': `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${raw}`, 'utf8').digest('hex')}`,
});

describe('Slack request signing (v0)', () => {
  it("computes Slack's documented example signature", () => {
    // The example of Slack's "Verifying requests from Slack" guide.
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    expect(slackSignature('8f742231b10e8888abcd99yyyzzz85a5', '1531420618', body)).to.equal(
      'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    );
  });

  it('accepts a good signature: the headers, then the signature over the raw bytes', () => {
    const headers = signed(RAW);
    expect(signatureHeadersPass(headers, NOW)).to.equal(true);
    expect(signatureMatches(headers, bytes(RAW), SECRET, NOW)).to.equal(true);
  });

  it('refuses a bad signature: another secret, another body, a changed digit, upper-case hex, another version', () => {
    const good = signed(RAW)['x-slack-signature'];
    const flipped = `${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`;
    expect(signatureMatches(signed(RAW, 'another-secret'), bytes(RAW), SECRET, NOW)).to.equal(false);
    expect(signatureMatches(signed(RAW), bytes(`${RAW} `), SECRET, NOW)).to.equal(false);
    for (const signature of [flipped, good.toUpperCase().replace('V0=', 'v0='), good.replace('v0=', 'v1='), `${good}0`, 'v0=', 'garbage']) {
      const headers = { ...signed(RAW), 'x-slack-signature': signature };
      expect(signatureMatches(headers, bytes(RAW), SECRET, NOW), signature).to.equal(false);
    }
  });

  it('refuses a request older (or newer) than five minutes, though correctly signed: a replay', () => {
    for (const offset of [-301, 301, -3600]) {
      const headers = signed(RAW, SECRET, nowSeconds + offset);
      expect(signatureHeadersPass(headers, NOW), String(offset)).to.equal(false);
      expect(signatureMatches(headers, bytes(RAW), SECRET, NOW), String(offset)).to.equal(false);
    }
    for (const offset of [-300, 0, 300]) expect(signatureMatches(signed(RAW, SECRET, nowSeconds + offset), bytes(RAW), SECRET, NOW)).to.equal(true);
  });

  it('refuses a request with a header missing, or a timestamp that is not unix seconds', () => {
    const headers = signed(RAW);
    expect(signatureHeadersPass({}, NOW)).to.equal(false);
    expect(signatureHeadersPass({ 'x-slack-signature': headers['x-slack-signature'] }, NOW)).to.equal(false);
    expect(signatureHeadersPass({ 'x-slack-request-timestamp': headers['x-slack-request-timestamp'] }, NOW)).to.equal(false);
    expect(signatureMatches({ 'x-slack-signature': headers['x-slack-signature'] }, bytes(RAW), SECRET, NOW)).to.equal(false);
    for (const timestamp of ['', ' 1767268800', '1767268800.5', '-1', 'now']) {
      expect(signatureHeadersPass({ ...headers, 'x-slack-request-timestamp': timestamp }, NOW), timestamp).to.equal(false);
    }
  });
});
