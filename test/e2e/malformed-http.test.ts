import { expect } from 'chai';
import { join } from 'node:path';
import { migratedDataDir } from '../support/data-dirs.js';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { send } from '../support/http.js';
import { sendRaw } from '../support/raw-http.js';

/*
 * Requests Node's HTTP parser refuses, on the built server: answered with {error} and an
 * x-request-id, logged and counted like any request, and the server goes on serving.
 */
describe('e2e: requests HTTP does not allow', function () {
  this.timeout(60_000);
  let gateway: GatewayProcess;
  before(async () => {
    const dir = await migratedDataDir('malformed-http');
    gateway = await startGateway({ DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json'), REQUEST_TIMEOUT_MS: '1000' });
  });
  after(() => gateway?.stop());

  it('answers a control character in a header with 400 {error: "Invalid header"}, logs it without the request and counts it in /metrics', async () => {
    const answer = await sendRaw(gateway.port, 'GET /api/ping HTTP/1.1\r\nHost: x\r\nX-Key: sk-secret\r\nX-Foo: a\x01b\r\n\r\n');
    expect(answer.status).to.equal(400);
    expect(JSON.parse(answer.body)).to.deep.equal({ error: 'Invalid header' });
    const requestId = answer.headers['x-request-id'];
    const line = await gateway.logLine((l) => l.msg === 'request rejected' && l.reqId === requestId, 'the rejection log line');
    expect(line).to.include({ level: 30, status: 400, code: 'HPE_INVALID_HEADER_TOKEN' });
    expect(JSON.stringify(gateway.logs)).not.to.include('sk-secret');
    const metrics = await fetch(`${gateway.url}/metrics`);
    expect(await metrics.text()).to.include('agw_http_requests_total{route="unmatched",method="UNKNOWN",status="400"} 1');
    expect(await send(`${gateway.url}/api/ping`)).to.deep.equal({ status: 200, body: { message: 'Pong!' } });
  });

  it('answers headers that never end with 408 {error} after REQUEST_TIMEOUT_MS, not after a minute', async () => {
    const started = performance.now();
    const answer = await sendRaw(gateway.port, 'GET /api/ping HTTP/1.1\r\nHost: x\r\n');
    expect(performance.now() - started).to.be.below(10_000);
    expect(answer.status).to.equal(408);
    expect(JSON.parse(answer.body)).to.deep.equal({ error: 'Request timed out (headers or body not received in time)' });
    expect(await send(`${gateway.url}/api/ping`)).to.deep.equal({ status: 200, body: { message: 'Pong!' } });
  });
});
