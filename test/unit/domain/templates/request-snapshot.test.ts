import { expect } from 'chai';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';

describe('snapshotRequest: credential fields of the body', () => {
  const bodyOf = (body: unknown, fields: readonly string[]) => snapshotRequest(body, {}, {}, [], fields).body;

  it('drops top-level fields of an object body, and leaves other bodies as they are', () => {
    expect(bodyOf({ token: 't', response_url: 'https://hooks.example/x', text: 'hi' }, ['token', 'response_url'])).to.deep.equal({ text: 'hi' });
    for (const body of ['token', 42, null, undefined, ['token'], [{ token: 't' }]]) expect(bodyOf(body, ['token']), String(body)).to.deep.equal(body);
  });

  it('drops a field inside a field holding JSON text (a form’s `payload`), writing the JSON again without it', () => {
    const payload = {
      type: 'block_actions',
      token: 't',
      response_url: 'https://hooks.example/x',
      actions: [{ value: 'v' }],
      user: { id: 'U1', token: 'kept' },
    };
    const body = bodyOf({ payload: JSON.stringify(payload), other: 'x' }, ['token', 'payload.token', 'payload.response_url']) as Record<string, string>;
    expect(Object.keys(body)).to.deep.equal(['payload', 'other']);
    expect(JSON.parse(body.payload)).to.deep.equal({ type: 'block_actions', actions: [{ value: 'v' }], user: { id: 'U1', token: 'kept' } });
  });

  it('drops nested fields of objects too, at any depth of its path', () => {
    expect(bodyOf({ a: { b: { secret: 's', keep: 1 } }, secret: 'top' }, ['a.b.secret'])).to.deep.equal({ a: { b: { keep: 1 } }, secret: 'top' });
  });

  it('keeps a field holding text as sent when it is no JSON object or has none of the fields', () => {
    const spaced = '{ "type": "block_actions" }';
    for (const payload of [spaced, 'not json', '{"broken"', '["token"]', '"token"']) {
      expect(bodyOf({ payload }, ['payload.token']), payload).to.deep.equal({ payload });
    }
  });

  it('changes nothing of the body it was given, and keeps a `__proto__` field a field', () => {
    const body = JSON.parse('{"token":"t","__proto__":{"polluted":true},"payload":"{\\"token\\":\\"t\\",\\"a\\":1}"}') as Record<string, unknown>;
    const before = JSON.stringify(body);
    const kept = bodyOf(body, ['token', 'payload.token']) as Record<string, unknown>;
    expect(JSON.stringify(body)).to.equal(before);
    expect(Object.getPrototypeOf(kept)).to.equal(Object.prototype);
    expect(Object.hasOwn(kept, '__proto__')).to.equal(true);
    expect(kept.payload).to.equal('{"a":1}');
  });
});
