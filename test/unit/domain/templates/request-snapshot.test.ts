import { expect } from 'chai';
import { parseStoredSnapshot, snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import { renderText } from '../../../../src/domain/templates/template-tokens.js';

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

describe('snapshotRequest: credential headers', () => {
  /** Headers that carry a credential, as platforms and proxies name them (any case). */
  const CREDENTIALS: Record<string, string> = {
    'X-Api-Key': 'agw_key',
    Authorization: 'Bearer a',
    'Proxy-Authorization': 'Basic b',
    Cookie: 'sid=c',
    'X-Hub-Signature': 'sha1=d',
    'X-Hub-Signature-256': 'sha256=e',
    'X-Gitlab-Token': 'gitlab-f',
    'X-Auth-Token': 'auth-g',
    'Api-Key': 'h',
    'X-Api-Token': 'i',
    'X-Apikey': 'j',
    'Private-Token': 'k',
    'X-Telegram-Bot-Api-Secret-Token': 'l',
    'X-Slack-Signature': 'v0=m',
    'Stripe-Signature': 't=1,v1=n',
    'X-Shopify-Hmac-Sha256': 'o',
    'X-Webhook-Secret': 'p',
    'X-Session-Id': 'q',
    'X-Csrf-Token': 'r',
    'X-Password': 's',
    'X-Amz-Security-Token': 'u',
    'Ocp-Apim-Subscription-Key': 'w',
    'X-Client-Credentials': 'x',
    'X-Jwt-Assertion': 'y',
  };
  /** Headers a trigger may read (docs/triggers.md), `Idempotency-Key` among them. */
  const PLAIN: Record<string, string> = {
    'Content-Type': 'application/json',
    'X-GitHub-Event': 'push',
    'X-GitHub-Delivery': 'd-1',
    'X-Gitlab-Event': 'Push Hook',
    'X-Slack-Request-Timestamp': '1700000000',
    'Idempotency-Key': 'idem-1',
    'User-Agent': 'curl/8',
    'X-Thing': 'thing',
  };
  const secrets = Object.values(CREDENTIALS);
  const snapshot = () => snapshotRequest({ a: 1 }, {}, { ...CREDENTIALS, ...PLAIN });

  it('keeps none of them in the snapshot, nor in the JSON it is stored as, and keeps the other headers', () => {
    const taken = snapshot();
    expect(taken.headers).to.deep.equal(Object.fromEntries(Object.entries(PLAIN).map(([name, value]) => [name.toLowerCase(), value])));
    const stored = JSON.stringify(taken);
    for (const secret of secrets) expect(stored, secret).not.to.contain(`"${secret}"`);
  });

  it('renders none of them: {{headers}} lacks them, {{headers.<name>}} is empty, other headers render', () => {
    const request = parseStoredSnapshot(JSON.stringify(snapshot()));
    const all = renderText('{{headers}}', request);
    for (const secret of secrets) expect(all, secret).not.to.contain(`"${secret}"`);
    for (const name of Object.keys(CREDENTIALS)) expect(renderText(`{{headers.${name}}}`, request), name).to.equal('');
    expect(renderText('{{headers.x-github-event}} {{headers.Idempotency-Key}} {{headers.x-thing}}', request)).to.equal('push idem-1 thing');
  });
});

describe('snapshotRequest: `__proto__` as a name', () => {
  // As Koa and Node give them: own properties, on objects without a prototype.
  const own = (entries: [string, string | string[]][]) => Object.assign(Object.create(null) as Record<string, string | string[]>, Object.fromEntries(entries));
  const taken = () =>
    snapshotRequest(
      undefined,
      own([
        ['__proto__', 'q-value'],
        ['a', ['1', '2']],
      ]),
      own([
        ['__proto__', 'h-value'],
        ['x-thing', 't'],
      ]),
    );

  it('keeps a query parameter and a header named `__proto__` as data, prototypes untouched', () => {
    const { query, headers } = taken();
    expect(Object.hasOwn(query, '__proto__')).to.equal(true);
    expect(Object.hasOwn(headers, '__proto__')).to.equal(true);
    expect(Object.getPrototypeOf(query)).to.equal(Object.prototype);
    expect(Object.getPrototypeOf(headers)).to.equal(Object.prototype);
    expect(Object.entries(query)).to.deep.equal([
      ['__proto__', 'q-value'],
      ['a', ['1', '2']],
    ]);
    expect(Object.entries(headers)).to.deep.equal([
      ['__proto__', 'h-value'],
      ['x-thing', 't'],
    ]);
  });

  it('stores, reads back and renders them as any other name', () => {
    const text = JSON.stringify(taken());
    expect(text).to.equal('{"query":{"__proto__":"q-value","a":["1","2"]},"headers":{"__proto__":"h-value","x-thing":"t"}}');
    const request = parseStoredSnapshot(text);
    expect(renderText('{{query.__proto__}} {{headers.__proto__}} {{query}} {{headers}}', request)).to.equal(
      'q-value h-value {"__proto__":"q-value","a":["1","2"]} {"__proto__":"h-value","x-thing":"t"}',
    );
    expect(Object.getPrototypeOf(request.headers)).to.equal(Object.prototype);
  });
});
