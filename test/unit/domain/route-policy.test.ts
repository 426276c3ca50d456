import { expect } from 'chai';
import { apiRoutes, lookupRoute, watchPathOf, watchPathsOf } from '../../../src/domain/auth/route-policy.js';

describe('routePolicy', () => {
  const routes = apiRoutes(
    [
      { id: 'chat-a', registers: true },
      { id: 'chat-b', registers: false },
    ],
    'chat-a',
  );
  const byPolicy = (policy: string) => routes.filter((route) => route.auth === policy).map((r) => `${r.method} ${r.path}`);

  it('leaves only GET /api/ping public (SPEC 5.1)', () => {
    expect(byPolicy('public')).to.deep.equal(['GET /api/ping']);
  });

  it("authenticates the platform webhooks by their platform's secret: the code host's and each channel's, the alias path too", () => {
    expect(byPolicy('platform-secret')).to.have.members([
      'POST /api/codehost/webhook',
      'POST /api/messaging/chat-a/webhook',
      'POST /api/messaging/webhook',
      'POST /api/messaging/chat-b/webhook',
    ]);
  });

  it('requires an API key on every other endpoint: registration only where the platform has it', () => {
    expect(byPolicy('api-key')).to.have.members([
      'POST /api/create-job',
      'GET /api/jobs/status',
      'POST /api/messaging/chat-a/register',
      'POST /api/messaging/register',
      'POST /api/webhook',
    ]);
  });

  it('without an alias channel, has no alias paths', () => {
    const paths = apiRoutes([{ id: 'chat-a', registers: true }]).map((route) => route.path);
    expect(paths).to.include('/api/messaging/chat-a/webhook');
    expect(paths).not.to.include('/api/messaging/webhook');
    expect(paths).not.to.include('/api/messaging/register');
  });

  it("gives a channel's webhook, and its alias path, the body credential fields the channel declares; other routes none of them", () => {
    const declared = apiRoutes(
      [
        { id: 'chat-a', registers: true, webhookCredentialFields: ['token', 'payload.token'] },
        { id: 'chat-b', registers: false },
      ],
      'chat-a',
    );
    const fields = Object.fromEntries(declared.map((route) => [route.path, route.credentialFields]));
    expect(fields['/api/messaging/chat-a/webhook']).to.deep.equal(['token', 'payload.token']);
    expect(fields['/api/messaging/webhook']).to.deep.equal(['token', 'payload.token']);
    expect(fields['/api/messaging/chat-a/register']).to.deep.equal(['bot_token']);
    expect(fields['/api/messaging/chat-b/webhook']).to.equal(undefined);
    expect(fields['/api/webhook']).to.equal(undefined);
  });

  it("marks the code host's webhook, and a channel's that declares it (a body signed, no secret header), and its alias path, as knowing its caller only once the body is read", () => {
    const declared = apiRoutes(
      [
        { id: 'chat-a', registers: true, webhookCallerKnownAfterBody: true },
        { id: 'chat-b', registers: false },
      ],
      'chat-a',
    );
    const marked = declared.filter((route) => route.callerKnownAfterBody === true).map((route) => route.path);
    expect(marked).to.deep.equal(['/api/codehost/webhook', '/api/messaging/chat-a/webhook', '/api/messaging/webhook']);
  });

  it('refuses a channel id that is no path segment', () => {
    for (const id of ['', 'Chat', 'a/b', '../x', 'a b', '1abc']) expect(() => apiRoutes([{ id, registers: false }]), id).to.throw(/Invalid channel id/);
  });

  it('declares every path once per method and under /api', () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).to.equal(keys.length);
    for (const route of routes) expect(route.path.startsWith('/api/')).to.equal(true);
  });

  describe('#lookupRoute', () => {
    it('finds a route, with or without a trailing slash', () => {
      expect(lookupRoute('GET', '/api/ping/', routes).kind).to.equal('found');
      const found = lookupRoute('POST', '/api/messaging/chat-b/webhook', routes);
      expect(found.kind === 'found' && found.route.channel).to.equal('chat-b');
    });

    it('finds a path in any case, as the router matches it: a wrong method there is told apart from an unknown path', () => {
      expect(lookupRoute('GET', '/api/Webhook', routes)).to.deep.equal({ kind: 'wrong-method', name: 'webhook', allowed: ['POST'] });
      expect(lookupRoute('GET', '/API/PING/', routes).kind).to.equal('found');
    });

    it('answers HEAD like GET', () => {
      expect(lookupRoute('HEAD', '/api/ping', routes).kind).to.equal('found');
    });

    it('tells a known path with the wrong method from an unknown path', () => {
      expect(lookupRoute('GET', '/api/create-job', routes)).to.deep.equal({ kind: 'wrong-method', name: 'create-job', allowed: ['POST'] });
      expect(lookupRoute('GET', '/api/nothing-here', routes)).to.deep.equal({ kind: 'unknown' });
      expect(lookupRoute('GET', '/api', routes)).to.deep.equal({ kind: 'unknown' });
      expect(lookupRoute('POST', '/api/messaging/chat-b/register', routes)).to.deep.equal({ kind: 'unknown' });
      expect(lookupRoute('POST', '/api/messaging/chat-c/webhook', routes)).to.deep.equal({ kind: 'unknown' });
    });
  });

  it('gives triggers the path without /api', () => {
    const codehost = routes.find((r) => r.name === 'codehost-webhook')!;
    expect(watchPathOf(codehost)).to.equal('/codehost/webhook');
    expect(watchPathsOf(codehost)).to.deep.equal(['/codehost/webhook']);
  });

  it("makes a channel's endpoint and its alias path one endpoint for triggers: each names both watch paths, its own first", () => {
    const paths = (path: string) => watchPathsOf(routes.find((r) => r.path === path)!);
    expect(paths('/api/messaging/chat-a/webhook')).to.deep.equal(['/messaging/chat-a/webhook', '/messaging/webhook']);
    expect(paths('/api/messaging/webhook')).to.deep.equal(['/messaging/webhook', '/messaging/chat-a/webhook']);
    expect(paths('/api/messaging/register')).to.deep.equal(['/messaging/register', '/messaging/chat-a/register']);
    expect(paths('/api/messaging/chat-b/webhook')).to.deep.equal(['/messaging/chat-b/webhook']);
  });
});
