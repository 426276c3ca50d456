import { expect } from 'chai';
import Koa from 'koa';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrometheusMetrics } from '../../../src/adapters/http/prometheus-metrics.js';
import type { CollectOperationalFigures, OperationalFigures } from '../../../src/application/operations/collect-operational-figures.js';

describe('PrometheusMetrics', () => {
  it('reports 0 for an action run status none has any longer, instead of its last count', async () => {
    let figures: OperationalFigures = { queueDepth: {}, failedTasks: {}, jobs: {}, actionRuns: { running: 2, succeeded: 5 } };
    const metrics = new PrometheusMetrics({ execute: async () => figures } as unknown as CollectOperationalFigures, undefined);
    const app = new Koa();
    app.use(metrics.endpoint());
    const server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const scrape = async (): Promise<string> => (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`)).text();
    try {
      expect(await scrape()).to.match(/^agw_trigger_action_runs\{status="running"\} 2$/m);
      figures = { ...figures, actionRuns: { succeeded: 7 } };
      const text = await scrape();
      expect(text).to.match(/^agw_trigger_action_runs\{status="running"\} 0$/m);
      expect(text).to.match(/^agw_trigger_action_runs\{status="succeeded"\} 7$/m);
      expect(text).to.match(/^agw_trigger_action_runs\{status="awaiting_approval"\} 0$/m);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('PrometheusMetrics endpoint (GET /metrics behind the token)', () => {
  const figures: OperationalFigures = { queueDepth: {}, failedTasks: {}, jobs: {}, actionRuns: {} };
  let server: ReturnType<typeof createServer>;
  let url: string;

  beforeEach(async () => {
    const metrics = new PrometheusMetrics({ execute: async () => figures } as unknown as CollectOperationalFigures, 'scrape-me');
    const app = new Koa();
    app.use(metrics.endpoint());
    app.use((ctx) => {
      ctx.status = 404;
      ctx.body = { error: 'Not found' };
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('takes the bearer scheme in any case (RFC 9110 §11.1), and refuses a missing or wrong token with 401', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const response = await fetch(url, { headers: { authorization: `${scheme} scrape-me` } });
      expect(response.status, scheme).to.equal(200);
      expect(await response.text(), scheme).to.match(/^# HELP agw_queue_depth /m);
    }
    for (const authorization of [undefined, 'Bearer wrong', 'Bearer scrape-me-not', 'Bearer', 'Basic scrape-me', 'bearerscrape-me', 'scrape-me']) {
      const response = await fetch(url, { headers: authorization === undefined ? {} : { authorization } });
      expect(response.status, authorization).to.equal(401);
      expect(await response.json(), authorization).to.deep.equal({ error: 'Unauthorized' });
    }
  });

  it('names the bearer token in WWW-Authenticate on every 401 (RFC 9110 §11.6.1), invalid_token when a bearer token was sent that is not it (RFC 6750 §3)', async () => {
    const challenges: Record<string, string | null> = {};
    for (const authorization of [undefined, 'Basic scrape-me', 'Bearer', 'Bearer wrong', 'bearer scrape-me-not']) {
      for (const method of ['GET', 'HEAD']) {
        const response = await fetch(url, { method, headers: authorization === undefined ? {} : { authorization } });
        expect(response.status, `${method} ${authorization}`).to.equal(401);
        challenges[`${method} ${authorization ?? '(none)'}`] = response.headers.get('www-authenticate');
      }
    }
    const none = 'Bearer realm="agent-gateway metrics"';
    const invalid = 'Bearer realm="agent-gateway metrics", error="invalid_token"';
    expect(challenges).to.deep.equal({
      'GET (none)': none,
      'HEAD (none)': none,
      'GET Basic scrape-me': none,
      'HEAD Basic scrape-me': none,
      'GET Bearer': none,
      'HEAD Bearer': none,
      'GET Bearer wrong': invalid,
      'HEAD Bearer wrong': invalid,
      'GET bearer scrape-me-not': invalid,
      'HEAD bearer scrape-me-not': invalid,
    });
    const allowed = await fetch(url, { headers: { authorization: 'Bearer scrape-me' } });
    expect(allowed.status).to.equal(200);
    expect(allowed.headers.get('www-authenticate')).to.equal(null);
  });

  it('answers HEAD like GET, without a body', async () => {
    const head = await fetch(url, { method: 'HEAD', headers: { authorization: 'Bearer scrape-me' } });
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-type')).to.match(/^text\/plain/);
    expect(await head.text()).to.equal('');
    expect((await fetch(url, { method: 'HEAD' })).status).to.equal(401);
  });

  it('refuses another method with 405, naming it, and Allow: GET, HEAD', async () => {
    for (const method of ['PUT', 'POST', 'DELETE', 'OPTIONS']) {
      const response = await fetch(url, { method, headers: { authorization: 'Bearer scrape-me' } });
      expect(response.status, method).to.equal(405);
      expect(response.headers.get('allow'), method).to.equal('GET, HEAD');
      expect(await response.json(), method).to.deep.equal({ error: `Method ${method} is not allowed on /metrics` });
    }
  });
});
