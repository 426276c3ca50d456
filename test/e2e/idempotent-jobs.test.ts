import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey, send } from '../support/http.js';

/*
 * End-to-end: POST /api/create-job with an `Idempotency-Key` (issue 17.7) on the built server,
 * embedded database, a trivial agent. What a caller notices: the answers, the
 * `idempotent-replayed` header, and how many jobs GET /api/jobs/status lists.
 */

interface Created {
  readonly job_id: string;
  readonly branch: string;
  readonly status: string;
}

describe('e2e: idempotent job creation (Idempotency-Key)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let env: Record<string, string>;
  let gateway: GatewayProcess | undefined;
  let key: string;
  let otherKey: string;

  const create = async (body: unknown, idempotencyKey?: string, apiKey = key) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': apiKey };
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    const response = await fetch(`${gateway!.url}/api/create-job`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
    return { status: response.status, replayed: response.headers.get('idempotent-replayed'), body: (await response.json()) as Created & { error?: string } };
  };

  /** Which of `ids` name a stored job (GET /api/jobs/status?job_id=…). */
  const jobsWith = async (ids: readonly string[]): Promise<string[]> => {
    const found: string[] = [];
    for (const id of new Set(ids)) {
      const response = await send<{ job_id: string }>(`${gateway!.url}/api/jobs/status?job_id=${id}`, { headers: { 'x-api-key': key } });
      if (response.status === 200) found.push(response.body.job_id);
    }
    return found;
  };
  const listedCount = async (): Promise<number> => {
    const response = await send<{ jobs: unknown[] }>(`${gateway!.url}/api/jobs/status`, { headers: { 'x-api-key': key } });
    expect(response.status).to.equal(200);
    return response.body.jobs.length;
  };

  before(async () => {
    dataDir = await migratedDataDir('e2e-idempotent-jobs');
    env = { DATA_DIR: dataDir, TRIGGERS_FILE: join(dataDir, 'NONE.json'), JOB_AGENT_COMMAND: 'echo done' };
    gateway = await startGateway(env);
    key = await createKey(gateway.env, 'idem-1');
    otherKey = await createKey(gateway.env, 'idem-2');
  });

  after(async () => {
    await gateway?.stop();
  });

  it('answers the same key and body with the same job (200, idempotent-replayed) and creates nothing; another body is 409 naming the key', async () => {
    const before = await listedCount();
    const idem = `order-${randomUUID()}`;
    const first = await create({ job: 'Update the changelog', llm_model: 'm' }, idem);
    expect(first.status).to.equal(200);
    expect(first.replayed).to.equal(null);
    // the same request, keys in another order and other spacing: the same body
    const again = await create(`{ "llm_model": "m",   "job": "Update the changelog" }`, idem);
    expect(again.status).to.equal(200);
    expect(again.replayed).to.equal('true');
    expect(again.body.job_id).to.equal(first.body.job_id);
    expect(again.body.branch).to.equal(`job/${first.body.job_id}`);

    const conflict = await create({ job: 'Something else' }, idem);
    expect(conflict.status).to.equal(409);
    expect(conflict.body).to.deep.equal({ error: `Idempotency-Key "${idem}" was already used with a different request body` });
    expect(await listedCount()).to.equal(before + 1);
  });

  it('keeps keys per API key: another caller with the same key gets its own job', async () => {
    const idem = `shared-${randomUUID()}`;
    const mine = await create({ job: 'Mine' }, idem);
    const theirs = await create({ job: 'Theirs' }, idem, otherKey);
    expect([mine.status, theirs.status]).to.deep.equal([200, 200]);
    expect(theirs.body.job_id).to.not.equal(mine.body.job_id);
    expect(theirs.replayed).to.equal(null);
  });

  it('refuses a bad Idempotency-Key with 400 and creates nothing', async () => {
    const before = await listedCount();
    for (const bad of ['k'.repeat(256), 'caf\u00e9']) {
      const refused = await create({ job: 'Refused' }, bad);
      expect(refused.status, bad).to.equal(400);
      expect(refused.body).to.deep.equal({ error: 'Idempotency-Key must be 1 to 255 printable ASCII characters' });
    }
    expect(await listedCount()).to.equal(before);
  });

  it('refuses an Idempotency-Key sent twice with 400 (Node would join the two into one key)', async () => {
    const before = await listedCount();
    const body = JSON.stringify({ job: 'Twice' });
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = httpRequest(
        `${gateway!.url}/api/create-job`,
        {
          method: 'POST',
          // A flat list of raw header lines (Host included: a list gets none added): the key's line twice, as a client may send it.
          headers: [
            'host',
            new URL(gateway!.url).host,
            'x-api-key',
            key,
            'content-type',
            'application/json',
            'idempotency-key',
            'a',
            'idempotency-key',
            'b',
            'content-length',
            String(body.length),
          ],
        },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        },
      );
      request.on('error', reject);
      request.end(body);
    });
    expect(answer.status, answer.text).to.equal(400);
    expect(JSON.parse(answer.text)).to.deep.equal({ error: 'Idempotency-Key must be sent once' });
    expect(await listedCount()).to.equal(before);
  });

  it('creates one job for concurrent duplicates; one that comes while it is created is told to try again (409), then gets it', async () => {
    const idem = `burst-${randomUUID()}`;
    const answers = await Promise.all(Array.from({ length: 12 }, () => create({ job: 'Burst' }, idem)));
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).to.be.oneOf([200, 409]);
    const answered = answers.filter((answer) => answer.status === 200);
    const ids = answered.map((answer) => answer.body.job_id);
    expect(new Set(ids).size).to.equal(1);
    expect(answered.filter((answer) => answer.replayed === null)).to.have.length(1);
    for (const busy of answers.filter((answer) => answer.status === 409))
      expect(busy.body.error).to.match(/is still creating its job; send it again in a moment/);
    const retried = await create({ job: 'Burst' }, idem);
    expect(retried).to.deep.include({ status: 200, replayed: 'true' });
    expect(retried.body.job_id).to.equal(ids[0]);
    expect(await jobsWith(ids)).to.have.length(1);
  });

  it('remembers a key across a restart (stored in the database)', async () => {
    const idem = `durable-${randomUUID()}`;
    const first = await create({ job: 'Durable' }, idem);
    await gateway!.stop();
    gateway = await startGateway(env);
    const again = await create({ job: 'Durable' }, idem);
    expect(again.status).to.equal(200);
    expect(again.replayed).to.equal('true');
    expect(again.body.job_id).to.equal(first.body.job_id);
  });
});
