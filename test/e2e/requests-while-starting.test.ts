import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { migratedDataDir } from '../support/data-dirs.js';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { createKey, waitFor } from '../support/http.js';
import { closedPort } from '../support/ports.js';

/** True once something accepts TCP connections on 127.0.0.1:`port`. */
const accepts = (port: number): Promise<boolean> =>
  new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });

/*
 * The service binds its port first and loads the rest of itself while the embedded database
 * boots (a second or more): a request sent in that time waits for the start instead of being
 * refused, so a restart costs its callers a wait, not a failed delivery.
 */
describe('e2e: a request sent while the service starts', () => {
  let gateway: GatewayProcess | undefined;
  after(async () => gateway?.stop());

  it('is answered once the service is ready, by the service (200 naming the fired trigger, not 503), and its trigger runs', async function () {
    this.timeout(90_000);
    const dir = await tempDir('e2e-starting-dir');
    const dataDir = await migratedDataDir('e2e-starting-data');
    const triggersFile = join(dir, 'TRIGGERS.json');
    await writeFile(
      triggersFile,
      JSON.stringify([
        { name: 'early', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: "printf '%s\\n' {{body.n}} >> ran.txt" }] },
      ]),
    );
    const key = await createKey({ DATA_DIR: dataDir }, 'starting');
    const port = await closedPort();
    let listening = false;
    const starting = startGateway({ DATA_DIR: dataDir, TRIGGERS_FILE: triggersFile, TRIGGERS_DIR: dir, PORT: String(port) }).then((started) => {
      listening = true;
      gateway = started;
      return started;
    });
    // Observed by the test below; until then a failed start is not an unhandled rejection.
    starting.catch(() => undefined);

    await waitFor(() => accepts(port), 60_000, 'the gateway to bind its port');
    const sentWhileStarting = !listening;
    const answer = await fetch(`http://127.0.0.1:${port}/api/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ n: 'early-bird' }),
    });
    await starting;
    expect(sentWhileStarting, 'the request was sent before the gateway logged that it listens').to.equal(true);
    expect(answer.status).to.equal(200);
    expect(await answer.json()).to.deep.equal({ ok: true, triggers: ['early'] });
    const ran = () => readFile(join(dir, 'ran.txt'), 'utf8').catch(() => '');
    await waitFor(async () => (await ran()) !== '', 30_000, 'the trigger of the early request to run');
    expect(await ran()).to.equal('early-bird\n');
  });
});
