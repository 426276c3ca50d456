import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { AdminSocketClient } from '../../src/adapters/http/admin-socket/admin-socket-client.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { queuesDrained, runningServerAdmin, waitFor } from '../support/http.js';

/*
 * A key revoked while its request is still uploading its body (the built server, embedded
 * database, revoked through the admin socket as `agent-gateway keys revoke` does): the request is
 * refused with 401 once its body is in, fires no trigger and creates no job.
 */
describe('e2e: a key revoked while its request body is arriving', function () {
  this.timeout(60_000);
  let gateway: GatewayProcess;
  let admin: AdminSocketClient;
  let dir: string;

  before(async () => {
    const dataDir = await migratedDataDir('e2e-revoke-midway');
    dir = await tempDir('e2e-revoke-midway-triggers');
    const triggersFile = join(dir, 'TRIGGERS.json');
    await writeFile(
      triggersFile,
      JSON.stringify([
        { name: 'on-webhook', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'echo {{body.mark}} >> fired.txt' }] },
        { name: 'on-create-job', watch_path: '/create-job', enabled: true, actions: [{ type: 'command', command: 'echo {{body.job}} >> fired.txt' }] },
      ]),
    );
    gateway = await startGateway({
      DATA_DIR: dataDir,
      TRIGGERS_FILE: triggersFile,
      TRIGGERS_DIR: dir,
      // The agent of a job writes its prompt where the test can see whether any job ran.
      JOB_AGENT_COMMAND: `printf '%s\\n' "$JOB_PROMPT" >> ${join(dir, 'jobs.txt')}; echo done`,
    });
    admin = (await runningServerAdmin(gateway.env))!;
    expect(admin, 'the admin socket of the running server').to.not.equal(undefined);
  });
  after(() => gateway?.stop());

  /** What a trigger's command or a job's agent wrote so far ('' before the first). */
  const written = (name: string): Promise<string> => readFile(join(dir, name), 'utf8').catch(() => '');

  /**
   * POSTs `body` on a raw socket with a fresh key: the headers and the body's first 5 bytes, then
   * — once the server accepted the key (its first use is recorded) — `between(id)`, then the rest.
   */
  const postInTwoParts = async (path: string, body: string, between: (keyId: string) => Promise<void>): Promise<{ status: number; body: string }> => {
    const created = await admin.create(`midway-${Math.random().toString(36).slice(2)}`);
    const head = [
      `POST ${path} HTTP/1.1`,
      `host: 127.0.0.1:${gateway.port}`,
      'connection: close',
      'content-type: application/json',
      `x-api-key: ${created.key}`,
      `content-length: ${Buffer.byteLength(body)}`,
    ].join('\r\n');
    return new Promise((resolve, reject) => {
      const socket = connect(gateway.port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const [status, ...rest] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(status)?.[1] ?? 0), body: rest.join('\r\n\r\n') });
      });
      socket.write(`${head}\r\n\r\n${body.slice(0, 5)}`);
      waitFor(async () => (await admin.list()).find((key) => key.id === created.id)?.lastUsedAt, 10_000, 'the key accepted (its use recorded)')
        .then(() => between(created.id))
        .then(() => socket.write(body.slice(5)), reject);
    });
  };

  it('answers 401 on /api/webhook and fires no trigger', async () => {
    const answer = await postInTwoParts('/api/webhook', JSON.stringify({ mark: 'revoked-webhook' }), (id) => admin.revoke(id));
    expect(answer).to.deep.equal({ status: 401, body: '{"error":"Unauthorized"}' });
    await queuesDrained(gateway.url);
    expect(await written('fired.txt')).not.to.contain('revoked-webhook');
  });

  it('answers 401 on /api/create-job and creates no job', async () => {
    const answer = await postInTwoParts('/api/create-job', JSON.stringify({ job: 'revoked-job' }), (id) => admin.revoke(id));
    expect(answer).to.deep.equal({ status: 401, body: '{"error":"Unauthorized"}' });
    await queuesDrained(gateway.url);
    expect(await written('fired.txt')).not.to.contain('revoked-job');
    expect(await written('jobs.txt')).not.to.contain('revoked-job');
  });

  it('answers a key left valid while the body arrives as usual: its trigger fires and its job runs', async () => {
    const hook = await postInTwoParts('/api/webhook', JSON.stringify({ mark: 'kept-webhook' }), async () => undefined);
    expect(hook).to.deep.equal({ status: 200, body: '{"ok":true,"triggers":["on-webhook"]}' });
    const job = await postInTwoParts('/api/create-job', JSON.stringify({ job: 'kept-job' }), async () => undefined);
    expect(job.status, job.body).to.equal(200);
    await waitFor(async () => (await written('jobs.txt')).includes('kept-job'), 20_000, 'the job to run');
    await waitFor(async () => (await written('fired.txt')).split('\n').includes('kept-job'), 20_000, "create-job's trigger");
    expect((await written('fired.txt')).split('\n')).to.include('kept-webhook');
  });
});
