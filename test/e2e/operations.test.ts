import { expect } from 'chai';
import { join } from 'node:path';
import { startGateway, tempDir, type GatewayProcess } from '../support/gatewayProcess.js';
import { send } from '../support/http.js';

describe('e2e: operations probes', function () {
  this.timeout(60_000);
  let gateway: GatewayProcess;
  before(async () => {
    const dir = await tempDir('ops');
    gateway = await startGateway({ DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json') });
  });
  after(() => gateway?.stop());

  it('answers GET /healthz without a key', async () => {
    expect(await send(`${gateway.url}/healthz`)).to.deep.equal({ status: 200, body: { status: 'ok' } });
  });

  it('answers GET /readyz with the database and the queue checked', async () => {
    expect(await send(`${gateway.url}/readyz`)).to.deep.equal({ status: 200, body: { status: 'ready', checks: { database: 'ok', queue: 'ok' } } });
  });

  it('keeps other methods and paths outside /api at 404', async () => {
    expect((await send(`${gateway.url}/healthz`, { method: 'POST' })).status).to.equal(404);
    expect((await send(`${gateway.url}/healthz/x`)).status).to.equal(404);
  });
});
