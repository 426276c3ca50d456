import { expect } from 'chai';
import { actionFingerprint, isFingerprintOf, legacyActionFingerprint } from '../../../../src/domain/triggers/action-fingerprint.js';
import type { TriggerAction } from '../../../../src/domain/triggers/trigger.js';

const hook = (fields: Partial<Record<'url' | 'authorization' | 'token', string>> = {}): TriggerAction => ({
  type: 'webhook',
  url: fields.url ?? 'https://hooks.example.com/services/T0/B0/PATHSECRET',
  method: 'POST',
  headers: { Authorization: `Bearer ${fields.authorization ?? 'HEADERSECRET'}` },
  vars: { token: fields.token ?? 'VARSECRET' },
});

/** A MAC for tests: not a real one, but keyed (its key is in what it returns). */
const keyed = (key: string) => ({
  mac: (text: string) => `${key}(${text.length}:${[...text].reduce((sum, c) => (sum * 31 + c.charCodeAt(0)) % 1_000_003, 7)})`,
});

describe('actionFingerprint', () => {
  it('with the installation key: a MAC of the whole definition, so any change shows, the approval flag aside', () => {
    const key = keyed('k1');
    expect(actionFingerprint(hook(), key)).to.match(/^k:k1\(/);
    for (const changed of [hook({ authorization: 'other' }), hook({ url: 'https://hooks.example.com/services/T0/B0/OTHER' }), hook({ token: 'other' })])
      expect(actionFingerprint(changed, key)).to.not.equal(actionFingerprint(hook(), key));
    expect(actionFingerprint({ ...hook(), approval: true }, key)).to.equal(actionFingerprint(hook(), key));
    expect(actionFingerprint(hook(), keyed('k2'))).to.not.equal(actionFingerprint(hook(), key));
  });

  it('without a key: leaves out what may be secret (the URL past its host, header and vars values), so nothing secret is hashed unkeyed', () => {
    const plain = actionFingerprint(hook());
    expect(plain).to.match(/^p:[0-9a-f]{16}$/);
    expect(actionFingerprint(hook({ authorization: 'x', token: 'y', url: 'https://hooks.example.com/other?token=z' }))).to.equal(plain);
    expect(actionFingerprint(hook({ url: 'https://elsewhere.example.com/services/T0/B0/PATHSECRET' }))).to.not.equal(plain);
    expect(actionFingerprint({ type: 'command', command: './a.sh' })).to.not.equal(actionFingerprint({ type: 'command', command: './b.sh' }));
  });
});

describe('isFingerprintOf', () => {
  const key = keyed('k1');
  it('compares a fingerprint in the form it was recorded in: keyed, without a key, or as versions before the key wrote it', () => {
    const action = hook();
    expect(isFingerprintOf(actionFingerprint(action, key), action, key)).to.equal(true);
    expect(isFingerprintOf(actionFingerprint(action, key), hook({ authorization: 'other' }), key)).to.equal(false);
    expect(isFingerprintOf(actionFingerprint(action), action, key)).to.equal(true);
    // As versions up to 2026-12-01 recorded it: 16 hex digits over the whole definition.
    expect(legacyActionFingerprint(action)).to.match(/^[0-9a-f]{16}$/);
    expect(isFingerprintOf(legacyActionFingerprint(action), action, key)).to.equal(true);
    expect(isFingerprintOf(legacyActionFingerprint(action), hook({ authorization: 'other' }), key)).to.equal(false);
  });

  it('never takes a keyed fingerprint for one made under another key, or without a key', () => {
    const action = hook();
    expect(isFingerprintOf(actionFingerprint(action, key), action, keyed('k2'))).to.equal(false);
    expect(isFingerprintOf(actionFingerprint(action, key), action)).to.equal(false);
  });
});
