import { expect } from 'chai';
import { API_ROUTES, lookupRoute, watchPathOf } from '../../../src/domain/auth/routePolicy.js';

describe('routePolicy', () => {
  const byPolicy = (policy: string) => API_ROUTES.filter((route) => route.auth === policy).map((r) => `${r.method} ${r.path}`);

  it('leaves only GET /api/ping public (SPEC 5.1)', () => {
    expect(byPolicy('public')).to.deep.equal(['GET /api/ping']);
  });

  it('authenticates the two platform webhooks by their platform secret', () => {
    expect(byPolicy('platform-secret')).to.have.members(['POST /api/messaging/webhook', 'POST /api/codehost/webhook']);
  });

  it('requires an API key on every other SPEC endpoint', () => {
    expect(byPolicy('api-key')).to.have.members([
      'POST /api/create-job',
      'GET /api/jobs/status',
      'POST /api/messaging/register',
      'POST /api/webhook',
    ]);
  });

  it('declares every path once per method and under /api', () => {
    const keys = API_ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).to.equal(keys.length);
    for (const route of API_ROUTES) expect(route.path.startsWith('/api/')).to.equal(true);
  });

  describe('#lookupRoute', () => {
    it('finds a route, with or without a trailing slash', () => {
      const found = lookupRoute('GET', '/api/ping/');
      expect(found.kind).to.equal('found');
    });

    it('answers HEAD like GET', () => {
      expect(lookupRoute('HEAD', '/api/ping').kind).to.equal('found');
    });

    it('tells a known path with the wrong method from an unknown path', () => {
      expect(lookupRoute('GET', '/api/create-job')).to.deep.equal({ kind: 'wrong-method', allowed: ['POST'] });
      expect(lookupRoute('GET', '/api/nothing-here')).to.deep.equal({ kind: 'unknown' });
      expect(lookupRoute('GET', '/api')).to.deep.equal({ kind: 'unknown' });
    });
  });

  it('gives triggers the path without /api', () => {
    const codehost = API_ROUTES.find((r) => r.name === 'codehost-webhook')!;
    expect(watchPathOf(codehost)).to.equal('/codehost/webhook');
  });
});
