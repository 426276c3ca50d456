import { expect } from 'chai';
import { join } from 'node:path';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { send } from '../support/http.js';

describe('e2e: operations probes', function () {
  this.timeout(60_000);
  let gateway: GatewayProcess;
  before(async () => {
    const dir = await migratedDataDir('ops');
    gateway = await startGateway({ DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json'), METRICS_TOKEN: 'scrape-me' });
  });
  after(() => gateway?.stop());

  it('answers GET /healthz without a key', async () => {
    expect(await send(`${gateway.url}/healthz`)).to.deep.equal({ status: 200, body: { status: 'ok' } });
  });

  it('answers GET /readyz with the database and the queue checked', async () => {
    expect(await send(`${gateway.url}/readyz`)).to.deep.equal({ status: 200, body: { status: 'ready', checks: { database: 'ok', queue: 'ok' } } });
  });

  it('serves Prometheus metrics behind the metrics token: requests by route and status, latency, queue depth, jobs', async () => {
    expect(await send(`${gateway.url}/metrics`)).to.deep.equal({ status: 401, body: { error: 'Unauthorized' } });
    expect((await send(`${gateway.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).to.equal(401);
    await send(`${gateway.url}/api/ping`);
    await send(`${gateway.url}/api/ping`);
    await send(`${gateway.url}/api/nothing`);
    const response = await fetch(`${gateway.url}/metrics`, { headers: { authorization: 'Bearer scrape-me' } });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/plain/);
    const text = await response.text();
    expect(text).to.match(/^agw_http_requests_total\{route="ping",method="GET",status="200"\} [2-9]/m);
    expect(text).to.match(/^agw_http_requests_total\{route="unmatched",method="GET",status="404"\} 1$/m);
    expect(text).to.match(/^agw_http_request_duration_seconds_bucket\{le="0.1",route="ping"\} [2-9]/m);
    expect(text).to.match(/^agw_queue_depth\{queue="trigger-run"\} 0$/m);
    expect(text).to.match(/^agw_jobs\{status="queued"\} 0$/m);
    expect(text).to.contain('agw_process_cpu_seconds_total');
  });

  it('answers HEAD on /metrics as GET, without a body, and takes the bearer scheme in any case', async () => {
    const head = await fetch(`${gateway.url}/metrics`, { method: 'HEAD', headers: { authorization: 'Bearer scrape-me' } });
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-type')).to.match(/^text\/plain/);
    expect(await head.text()).to.equal('');
    expect((await fetch(`${gateway.url}/metrics`, { method: 'HEAD' })).status).to.equal(401);
    const lower = await fetch(`${gateway.url}/metrics`, { headers: { authorization: 'bearer scrape-me' } });
    expect(lower.status).to.equal(200);
    expect(await lower.text()).to.match(/^agw_queue_depth\{queue="trigger-run"\} 0$/m);
  });

  it('refuses another method on /healthz, /readyz and /metrics with 405 and Allow, as the API does', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics'])
      for (const method of ['PUT', 'POST', 'OPTIONS', 'DELETE']) {
        const response = await fetch(`${gateway.url}${path}`, { method, headers: { authorization: 'Bearer scrape-me' } });
        expect(response.status, `${method} ${path}`).to.equal(405);
        expect(response.headers.get('allow'), `${method} ${path}`).to.equal('GET, HEAD');
        expect(await response.json(), `${method} ${path}`).to.deep.equal({ error: `Method ${method} is not allowed on ${path}` });
      }
  });

  it('keeps other paths outside /api at 404', async () => {
    expect((await send(`${gateway.url}/healthz/x`)).status).to.equal(404);
    expect((await send(`${gateway.url}/healthz/x`, { method: 'PUT' })).status).to.equal(404);
    expect((await send(`${gateway.url}/metricsx`)).status).to.equal(404);
  });
});
