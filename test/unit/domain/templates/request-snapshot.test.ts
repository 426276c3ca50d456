import { expect } from 'chai';
import {
  CREDENTIAL_HEADERS,
  credentialAnswersHeld,
  IDENTITY_HEADERS,
  isCredentialHeader,
  parseStoredSnapshot,
  snapshotRequest,
} from '../../../../src/domain/templates/request-snapshot.js';
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
    // Any key as the name's last word, OIDC data, proof-of-possession tokens, `auth` within a word.
    'X-Master-Key': 'key-1',
    'X-Admin-Key': 'key-2',
    'X-Client-Key': 'key-3',
    'DD-Application-Key': 'key-4',
    'X-App-Key': 'key-5',
    'X-Webhook-Key': 'key-6',
    'X-Shared-Key': 'key-7',
    'X-License-Key': 'key-8',
    'X-Key': 'key-9',
    Key: 'key-10',
    'X-Request-Key': 'key-11',
    X_Custom_Key: 'key-12',
    'X-Honeycomb-Team': 'hc-1',
    DPoP: 'dpop-1',
    'X-Amzn-Oidc-Data': 'oidc-1',
    'X-Authcode': 'ac-1',
    'X-Myauth': 'ma-1',
    // A password, a signature or a bearer token named by a word of the name.
    'X-Pass': 'hunter2',
    Pass: 'pw-2',
    'X-Pwd': 'pw-3',
    'X-Api-Sig': 'sig-1',
    'X-Sig': 'sig-2',
    X_Sig_V1: 'sig-3',
    'X-Bearer': 'bearer-1',
    Bearer: 'bearer-2',
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
    // Keys that are no credential, and words that only hold `key` or `author`.
    'X-Idempotency-Key': 'idem-2',
    'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
    'X-Event-Key': 'repo:push',
    'X-Keyboard': 'qwerty',
    'X-Monkey-Id': 'm-1',
    'X-Author': 'ann',
    'X-Commit-Author': 'ben',
    // Words that only hold `pass` or `sig`.
    'X-Passenger': 'p-1',
    'X-Bypass-Cache': 'p-2',
    'X-Signal': 'p-3',
    'X-Design': 'p-4',
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
    expect(renderText('{{headers.x-event-key}} {{headers.sec-websocket-key}} {{headers.x-author}}', request)).to.equal(
      'repo:push dGhlIHNhbXBsZSBub25jZQ== ann',
    );
  });
});

describe('snapshotRequest: identity headers a reverse proxy sets', () => {
  /** Who the user is, as oauth2-proxy, Cloudflare Access, Google IAP, authentik and others say: kept. */
  const IDENTITIES: Record<string, string> = {
    'X-Auth-Request-User': 'alice',
    'X-Auth-Request-Email': 'alice@example.com',
    'X-Auth-Request-Preferred-Username': 'alice.p',
    'X-Auth-Request-Groups': 'ops,dev',
    'Cf-Access-Authenticated-User-Email': 'bob@example.com',
    'X-Goog-Authenticated-User-Email': 'accounts.google.com:carol@example.com',
    'X-Goog-Authenticated-User-Id': 'accounts.google.com:1234',
    'X-Authentik-Username': 'dave',
    'X-Authentik-Email': 'dave@example.com',
    'Remote-User': 'erin',
    'X-Forwarded-User': 'frank',
    'X-Forwarded-Email': 'frank@example.com',
    'X-Amzn-Oidc-Identity': 'sub-1',
  };
  /** What the same proxies pass on that is a credential: dropped. */
  const PROXY_CREDENTIALS: Record<string, string> = {
    'X-Auth-Request-Access-Token': 'pc-1',
    'X-Forwarded-Access-Token': 'pc-2',
    'X-Authentik-Jwt': 'pc-3',
    'Cf-Access-Jwt-Assertion': 'pc-4',
    'Cf-Access-Client-Secret': 'pc-5',
    'X-Goog-Iap-Jwt-Assertion': 'pc-6',
    'X-Auth-Key': 'pc-7',
    'X-Auth': 'pc-8',
    'X-Forwarded-Authorization': 'pc-9',
    'X-Auth-Password': 'pc-10',
    'X-Auth-Secret': 'pc-11',
    'X-Authentik-Meta-Jwks': 'pc-12',
    'X-Amzn-Oidc-Accesstoken': 'pc-13',
  };
  const request = () => parseStoredSnapshot(JSON.stringify(snapshotRequest({}, {}, { ...IDENTITIES, ...PROXY_CREDENTIALS, 'X-Thing': 't' })));

  it('keeps them in the snapshot and renders each in {{headers.<name>}}, while the credentials the proxies pass on are dropped', () => {
    const taken = request();
    expect(taken.headers).to.deep.equal({
      ...Object.fromEntries(Object.entries(IDENTITIES).map(([name, value]) => [name.toLowerCase(), value])),
      'x-thing': 't',
    });
    expect(renderText('{{headers.x-auth-request-user}} {{headers.X-Auth-Request-Email}} {{headers.x-auth-request-preferred-username}}', taken)).to.equal(
      'alice alice@example.com alice.p',
    );
    for (const [name, value] of Object.entries(IDENTITIES)) expect(renderText(`{{headers.${name.toLowerCase()}}}`, taken), name).to.equal(value);
    const all = renderText('{{headers}}', taken);
    for (const [name, secret] of Object.entries(PROXY_CREDENTIALS)) {
      expect(all, name).not.to.contain(`"${secret}"`);
      expect(renderText(`{{headers.${name}}}`, taken), name).to.equal('');
    }
  });

  it('lists only names no credential word is in, and no header of CREDENTIAL_HEADERS', () => {
    for (const name of IDENTITY_HEADERS) {
      expect(name, name).to.equal(name.toLowerCase());
      expect(name, name).not.to.match(/token|secret|passw|signature|hmac|session|cookie|credential|jwt|key|authori[sz]ation/);
      expect(CREDENTIAL_HEADERS, name).not.to.include(name);
      expect(isCredentialHeader(name), name).to.equal(false);
    }
  });
});

describe('isCredentialHeader', () => {
  it('answers the same for a name asked again, and remembers at most 1 000 names however many it is asked', () => {
    for (let i = 0; i < 5_000; i++) {
      expect(isCredentialHeader(`x-unique-${i}`)).to.equal(false);
      expect(isCredentialHeader(`x-unique-token-${i}`)).to.equal(true);
      expect(credentialAnswersHeld()).to.be.at.most(1_000);
    }
    for (let i = 0; i < 3; i++) {
      expect(isCredentialHeader('x-auth-token')).to.equal(true);
      expect(isCredentialHeader('x-auth-request-user')).to.equal(false);
      expect(isCredentialHeader('authorization')).to.equal(true);
      expect(isCredentialHeader('idempotency-key')).to.equal(false);
    }
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
