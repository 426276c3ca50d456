import { expect } from 'chai';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { runCli, startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../support/postgres.js';

/*
 * End-to-end: the foundation of the service (routing, authentication, body parsing, errors,
 * request log, key administration through the CLI, start-up and shutdown) on the BUILT server
 * (`node dist/main.js`, see test/support/gateway-process.ts), driven over HTTP with the global
 * fetch, with the CLI run as a separate process. The same suite runs on the embedded database
 * and on PostgreSQL.
 */

// ---------------------------------------------------------------------------------------------
// helpers

interface JsonResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Headers;
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** A fresh, well-formed key (`agw_` + 43 base64url characters) that no database knows. */
const mintKey = (): string => `agw_${randomBytes(32).toString('base64url')}`;

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** BODY_LIMIT=1kb → 1024 bytes. */
const BODY_LIMIT = 1024;
const TOO_LARGE = { error: `Request body is larger than ${BODY_LIMIT} bytes` };
const UNAUTHORIZED = { error: 'Unauthorized' };
const NOT_FOUND = { error: 'Not found' };
const MISSING_JOB = { error: 'Missing job field' };
/**
 * docs/jobs.md: create-job without a runner (no JOB_AGENT_COMMAND, no code host) is
 * 501 `Jobs are not configured: set JOB_AGENT_COMMAND, …`. The hint after the colon names the
 * settings and changes as runners are added, so only the fixed part is pinned.
 */
const JOBS_NOT_CONFIGURED = /^Jobs are not configured(: \S.*)?$/;

type Engine = 'embedded' | 'postgres';

interface EngineSetup {
  readonly env: Record<string, string>;
  cleanup(): Promise<void>;
}

interface CreatedKey {
  readonly id: string;
  readonly name: string;
  readonly key: string;
  readonly created_at: string;
}

const createKeyWithCli = async (env: Record<string, string>, name = 'e2e'): Promise<CreatedKey> => {
  const result = await runCli(['keys', 'create', '--name', name, '--json'], env);
  expect(result.code, `keys create failed: ${result.stderr}`).to.equal(0);
  const created = JSON.parse(result.stdout) as CreatedKey;
  expect(created).to.have.all.keys('id', 'name', 'key', 'created_at');
  expect(created.name).to.equal(name);
  expect(created.key).to.match(/^agw_[A-Za-z0-9_-]{43}$/);
  expect(Number.isNaN(Date.parse(created.created_at))).to.equal(false);
  return created;
};

interface ListedKey {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly created_at: string;
  readonly last_used_at: string | null;
}

const listKeysWithCli = async (env: Record<string, string>): Promise<{ keys: ListedKey[]; stdout: string }> => {
  const result = await runCli(['keys', 'list', '--json'], env);
  expect(result.code, `keys list failed: ${result.stderr}`).to.equal(0);
  return { keys: JSON.parse(result.stdout) as ListedKey[], stdout: result.stdout };
};

// ---------------------------------------------------------------------------------------------

const describeFoundation = (engine: Engine, makeEnv: () => Promise<EngineSetup>): void => {
  describe(`e2e: foundation on the built server (${engine} database)`, function () {
    this.timeout(30_000);

    let setup: EngineSetup | undefined;
    let gateway: GatewayProcess | undefined;
    let stopped = false;
    /** A key created by the CLI in before(), valid for the whole suite. */
    let key: string;
    /** Every request id the gateway answered with, in order. */
    const requestIds: string[] = [];
    /** Every key text that ever existed in this suite: none may reach a log line. */
    const secrets: string[] = [];
    let sequence = 0;

    /** One HTTP request; records the request id the gateway answered with. */
    const send = async (path: string, init: RequestInit & { key?: string } = {}): Promise<JsonResponse> => {
      const headers = new Headers(init.headers);
      if (init.key !== undefined) headers.set('x-api-key', init.key);
      headers.set('x-request-id', `e2e-${engine}-${++sequence}`);
      const response = await fetch(`${gateway!.url}${path}`, { ...init, headers });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: the text shows in the failure message
      }
      const id = response.headers.get('x-request-id');
      if (id !== null) requestIds.push(id);
      return { status: response.status, body, headers: response.headers };
    };

    /** POST /api/create-job with a JSON body (a string is sent as is). */
    /** `keyToUse` undefined sends no x-api-key header at all. */
    const createJob = (body: unknown, keyToUse: string | undefined, headers: Record<string, string> = {}): Promise<JsonResponse> =>
      send('/api/create-job', {
        method: 'POST',
        key: keyToUse,
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });

    const jobStatus = (keyToUse: string | undefined): Promise<JsonResponse> => send('/api/jobs/status', { key: keyToUse });

    const expectResponse = (response: JsonResponse, status: number, body: unknown, what = ''): void => {
      expect({ status: response.status, body: response.body }, what).to.deep.equal({ status, body });
    };

    before(async function () {
      this.timeout(60_000);
      setup = await makeEnv();
      gateway = await startGateway({ ...setup.env, BODY_LIMIT: '1kb' });
      key = (await createKeyWithCli(gateway.env, 'suite')).key;
      secrets.push(key);
    });

    after(async function () {
      this.timeout(30_000);
      if (gateway && !stopped) await gateway.kill();
      await setup?.cleanup();
    });

    describe('routing', () => {
      it('GET /api/ping answers 200 {message:"Pong!"} without a key, with an x-request-id header', async () => {
        const response = await fetch(`${gateway!.url}/api/ping`);
        const body = (await response.json()) as unknown;
        expect(response.status).to.equal(200);
        expect(body).to.deep.equal({ message: 'Pong!' });
        const id = response.headers.get('x-request-id');
        expect(id, 'x-request-id header').to.be.a('string').and.not.equal('');
        requestIds.push(id!);
      });

      it('echoes a sane caller x-request-id', async () => {
        const response = await send('/api/ping');
        expect(response.status).to.equal(200);
        expect(response.headers.get('x-request-id')).to.equal(`e2e-${engine}-${sequence}`);
      });

      it('answers 404 {error:"Not found"} for an unknown /api path, without and with a valid key', async () => {
        expectResponse(await send('/api/does-not-exist'), 404, NOT_FOUND, 'GET without key');
        expectResponse(await send('/api/does-not-exist', { key }), 404, NOT_FOUND, 'GET with key');
        expectResponse(
          await send('/api/does-not-exist', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' }),
          404,
          NOT_FOUND,
          'POST with key',
        );
        expectResponse(await send('/api/jobs/status/extra', { key }), 404, NOT_FOUND, 'a path below an endpoint');
        expectResponse(await send('/api'), 404, NOT_FOUND, '/api itself');
      });

      it('replaces an unsafe caller x-request-id with a fresh one', async () => {
        const response = await fetch(`${gateway!.url}/api/ping`, { headers: { 'x-request-id': 'has spaces and ;' } });
        expect(response.status).to.equal(200);
        const id = response.headers.get('x-request-id');
        expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        requestIds.push(id!);
        await response.text();
      });

      it('treats a trailing slash as the same endpoint', async () => {
        expectResponse(await send('/api/ping/'), 200, { message: 'Pong!' }, '/api/ping/');
        expectResponse(await send('/api/jobs/status/'), 401, UNAUTHORIZED, '/api/jobs/status/ without a key');
      });

      it('answers 405 with an Allow header for an endpoint called with another method, before authentication', async () => {
        const get = await send('/api/create-job');
        expectResponse(get, 405, { error: 'Method GET is not allowed on /api/create-job' }, 'GET /api/create-job without a key');
        expect(get.headers.get('allow')).to.equal('POST');
        const post = await send('/api/ping', { method: 'POST' });
        expectResponse(post, 405, { error: 'Method POST is not allowed on /api/ping' }, 'POST /api/ping');
        expect(post.headers.get('allow')).to.equal('GET, HEAD');
      });

      it('answers 404 {error:"Not found"} for a path outside /api', async () => {
        expectResponse(await send('/does-not-exist'), 404, NOT_FOUND);
        expectResponse(await send('/'), 404, NOT_FOUND, '/');
        expectResponse(await send('/apifoo/ping'), 404, NOT_FOUND, '/apifoo/ping');
      });
    });

    describe('authentication', () => {
      const badKeys = (): Array<[string, string | undefined]> => [
        ['no x-api-key header', undefined],
        ['an empty x-api-key header', ''],
        ['a well-formed unknown key', mintKey()],
        ['a valid key with one character appended', `${key}A`],
        ['a prefix of a valid key', key.slice(0, 20)],
        ['a valid key without its last character', key.slice(0, -1)],
        ['a valid key with its last character changed', key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A')],
      ];

      it('answers 401 {error:"Unauthorized"} on POST /api/create-job for every missing or invalid key', async () => {
        for (const [what, bad] of badKeys()) {
          if (bad?.startsWith('agw_') && bad.length === key.length) secrets.push(bad);
          expectResponse(await createJob({ job: 'do it' }, bad), 401, UNAUTHORIZED, what);
        }
      });

      it('answers 401 {error:"Unauthorized"} on GET /api/jobs/status for every missing or invalid key', async () => {
        for (const [what, bad] of badKeys()) expectResponse(await jobStatus(bad), 401, UNAUTHORIZED, what);
      });

      it('answers 401 {error:"Unauthorized"} on POST /api/webhook for a missing or unknown key', async () => {
        const post = (k: string | undefined): Promise<JsonResponse> =>
          send('/api/webhook', { method: 'POST', key: k, headers: { 'content-type': 'application/json' }, body: '{}' });
        expectResponse(await post(undefined), 401, UNAUTHORIZED, 'no key');
        expectResponse(await post(mintKey()), 401, UNAUTHORIZED, 'unknown key');
      });

      it('lets a valid key through GET /api/jobs/status', async () => {
        const response = await jobStatus(key);
        expect(response.status, JSON.stringify(response.body)).to.equal(200);
      });

      it('answers 401 before reading the body: no key with malformed JSON, a non-JSON body or an oversized body', async () => {
        expectResponse(await createJob('{"job": ', undefined), 401, UNAUTHORIZED, 'no key + malformed JSON');
        expectResponse(await createJob('{"job": ', mintKey()), 401, UNAUTHORIZED, 'unknown key + malformed JSON');
        expectResponse(await createJob('hello', undefined, { 'content-type': 'text/plain' }), 401, UNAUTHORIZED, 'no key + text/plain');
        expectResponse(await createJob({ job: 'x'.repeat(4 * BODY_LIMIT) }, undefined), 401, UNAUTHORIZED, 'no key + oversized body');
      });
    });

    describe('request bodies', () => {
      it('answers 400 {error:"Invalid JSON body: …"} naming the place of the fault for malformed JSON with a valid key', async () => {
        expectResponse(await createJob('{"job": ', key), 400, { error: 'Invalid JSON body: unexpected end of the body at line 1 column 9' }, 'truncated JSON');
        expectResponse(
          await createJob('{job: "x"}', key),
          400,
          { error: "Invalid JSON body: expected property name or '}' at line 1 column 2" },
          'unquoted field name',
        );
      });

      it(`answers 413 naming the limit for a body over BODY_LIMIT (${BODY_LIMIT} bytes)`, async () => {
        const response = await createJob({ job: 'x'.repeat(2 * BODY_LIMIT) }, key);
        expectResponse(response, 413, TOO_LARGE, 'with content-length');
        expect((response.body as { error: string }).error).to.include(String(BODY_LIMIT));
      });

      it('answers 413 for a chunked body (no content-length) over BODY_LIMIT', async () => {
        const payload = new TextEncoder().encode(JSON.stringify({ job: 'y'.repeat(2 * BODY_LIMIT) }));
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            for (let i = 0; i < payload.length; i += 256) controller.enqueue(payload.slice(i, i + 256));
            controller.close();
          },
        });
        const response = await send('/api/create-job', {
          method: 'POST',
          key,
          headers: { 'content-type': 'application/json' },
          body: stream,
          duplex: 'half',
        } as RequestInit & { key: string; duplex: 'half' });
        expectResponse(response, 413, TOO_LARGE);
      });

      it('accepts a body just under BODY_LIMIT', async () => {
        const body = JSON.stringify({ nope: 'z'.repeat(BODY_LIMIT - 40) });
        expect(body.length).to.be.below(BODY_LIMIT);
        expectResponse(await createJob(body, key), 400, MISSING_JOB);
      });

      it('answers 415 for a text/plain body with a valid key', async () => {
        expectResponse(await createJob('hello', key, { 'content-type': 'text/plain' }), 415, { error: 'Content-Type must be application/json' });
      });
    });

    describe('POST /api/create-job', () => {
      it('answers 400 {error:"Missing job field"} for {}, an empty job, a non-string job and no body at all', async () => {
        expectResponse(await createJob({}, key), 400, MISSING_JOB, '{}');
        expectResponse(await createJob({ job: '' }, key), 400, MISSING_JOB, '{job:""}');
        expectResponse(await createJob({ job: '   ' }, key), 400, MISSING_JOB, '{job:"   "}');
        expectResponse(await createJob({ job: 5 }, key), 400, MISSING_JOB, '{job:5}');
        expectResponse(await createJob({ job: null }, key), 400, MISSING_JOB, '{job:null}');
        expectResponse(await createJob([], key), 400, MISSING_JOB, '[]');
        expectResponse(await createJob('"do it"', key), 400, MISSING_JOB, 'a JSON string');
        expectResponse(await send('/api/create-job', { method: 'POST', key }), 400, MISSING_JOB, 'no body, no content-type');
        expectResponse(
          await send('/api/create-job', { method: 'POST', key, headers: { 'content-type': 'application/json' } }),
          400,
          MISSING_JOB,
          'no body, content-type application/json',
        );
      });

      it('answers 501 (jobs are not configured) for a valid {job:"do it"} when no job runner is configured', async () => {
        const response = await createJob({ job: 'do it' }, key);
        expect(response.status, JSON.stringify(response.body)).to.equal(501);
        expect(response.body).to.be.an('object').that.has.all.keys('error');
        expect((response.body as { error: unknown }).error)
          .to.be.a('string')
          .that.matches(JOBS_NOT_CONFIGURED);
        // nothing was created: the job list stays empty
        expectResponse(await jobStatus(key), 200, { jobs: [] }, 'GET /api/jobs/status');
      });
    });

    describe('keys administered by the CLI while the server runs', () => {
      let created: CreatedKey;

      it('a key created by `keys create` works on the very next request', async () => {
        created = await createKeyWithCli(gateway!.env, 'e2e');
        secrets.push(created.key);
        expectResponse(await createJob({}, created.key), 400, MISSING_JOB);
        expect((await jobStatus(created.key)).status).to.equal(200);
      });

      it('`keys list --json` lists it by id, never with the key text', async () => {
        const { keys, stdout } = await listKeysWithCli(gateway!.env);
        const listed = keys.find((k) => k.id === created.id);
        expect(listed, `key ${created.id} in ${stdout}`).to.not.equal(undefined);
        expect(listed!.name).to.equal('e2e');
        expect(listed!.created_at).to.equal(created.created_at);
        expect(listed!.prefix).to.equal(created.key.slice(0, 8));
        expect(created.key.startsWith(listed!.prefix)).to.equal(true);
        // the previous test used the key: its last use is recorded
        expect(listed!.last_used_at, 'last_used_at after use').to.be.a('string');
        expect(Date.parse(listed!.last_used_at!)).to.be.at.least(Date.parse(created.created_at));
        for (const secret of secrets) expect(stdout).to.not.include(secret);
        expect(stdout).to.not.include(sha256(created.key));
      });

      it('`keys revoke ID` makes the next request 401', async () => {
        const result = await runCli(['keys', 'revoke', created.id], gateway!.env);
        expect(result.code, result.stderr).to.equal(0);
        expectResponse(await createJob({}, created.key), 401, UNAUTHORIZED, 'create-job');
        expectResponse(await jobStatus(created.key), 401, UNAUTHORIZED, 'jobs/status');
        const { keys } = await listKeysWithCli(gateway!.env);
        expect(keys.map((k) => k.id)).to.not.include(created.id);
        // the suite's own key still works
        expectResponse(await createJob({}, key), 400, MISSING_JOB);
      });

      it('`keys revoke` of an unknown id fails with exit code 1', async () => {
        const result = await runCli(['keys', 'revoke', randomUUID()], gateway!.env);
        expect(result.code, result.stdout + result.stderr).to.equal(1);
      });
    });

    if (engine === 'postgres') {
      describe('keys changed by plain SQL (PostgreSQL)', () => {
        let client: pg.Client;

        before(async () => {
          client = new pg.Client({ connectionString: gateway!.env.DATABASE_URL });
          await client.connect();
        });

        after(async () => {
          await client?.end();
        });

        // The gateway caches keys with no time limit: only the database's notification of a change
        // can make it see one. The bound only ends the wait; how long the notification took depends
        // on the machine's load, and is not what these tests prove.
        const NOTIFIED_WITHIN_MS = 15_000;

        it('a key whose row is deleted by SQL stops working as soon as the database notifies the delete', async () => {
          const created = await createKeyWithCli(gateway!.env, 'sql-delete');
          secrets.push(created.key);
          // used twice, so that it is in the server's cache if there is one
          expectResponse(await createJob({}, created.key), 400, MISSING_JOB);
          expectResponse(await createJob({}, created.key), 400, MISSING_JOB);
          const deleted = await client.query('delete from api_keys where id = $1', [created.id]);
          expect(deleted.rowCount).to.equal(1);
          const started = Date.now();
          let last: JsonResponse = await createJob({}, created.key);
          while (last.status !== 401 && Date.now() - started < NOTIFIED_WITHIN_MS) {
            await sleep(20);
            last = await createJob({}, created.key);
          }
          expectResponse(last, 401, UNAUTHORIZED, `still accepted ${Date.now() - started} ms after the SQL delete`);
        });

        it('a key inserted by SQL (sha256 hex digest) works as soon as the database notifies the insert', async () => {
          const inserted = mintKey();
          secrets.push(inserted);
          expectResponse(await createJob({}, inserted), 401, UNAUTHORIZED, 'before the insert');
          await client.query('insert into api_keys (id, name, key_hash, prefix) values ($1, $2, $3, $4)', [
            randomUUID(),
            'sql-insert',
            sha256(inserted),
            inserted.slice(0, 8),
          ]);
          // Unknown digests are answered from memory (a flood of unknown keys costs no query): a key
          // inserted outside the gateway works once the insert's notification has arrived.
          const started = Date.now();
          let last: JsonResponse = await createJob({}, inserted);
          while (last.status === 401 && Date.now() - started < NOTIFIED_WITHIN_MS) {
            await sleep(20);
            last = await createJob({}, inserted);
          }
          expectResponse(last, 400, MISSING_JOB, `still refused ${Date.now() - started} ms after the SQL insert`);
          expect((await jobStatus(inserted)).status).to.equal(200);
        });

        it('a key whose digest is changed by SQL stops working as soon as the database notifies the update', async () => {
          const created = await createKeyWithCli(gateway!.env, 'sql-update');
          secrets.push(created.key);
          expectResponse(await createJob({}, created.key), 400, MISSING_JOB);
          expectResponse(await createJob({}, created.key), 400, MISSING_JOB);
          await client.query('update api_keys set key_hash = $2 where id = $1', [created.id, sha256(mintKey())]);
          const started = Date.now();
          let last: JsonResponse = await createJob({}, created.key);
          while (last.status !== 401 && Date.now() - started < NOTIFIED_WITHIN_MS) {
            await sleep(20);
            last = await createJob({}, created.key);
          }
          expectResponse(last, 401, UNAUTHORIZED, `still accepted ${Date.now() - started} ms after the SQL update`);
        });
      });
    }

    describe('shutdown and logs', () => {
      it('stop() (SIGTERM) ends the process with exit code 0; its log holds exactly one request line per request, with its reqId, and no key text', async function () {
        this.timeout(20_000);
        // Traffic of its own, of every kind: answered, refused (a valid key, an unknown one, none),
        // not found, too large, with a caller's id and with an unsafe one replaced.
        const unknownKey = mintKey();
        secrets.push(unknownKey);
        const sent = requestIds.length;
        expectResponse(await send('/api/ping'), 200, { message: 'Pong!' }, 'ping');
        expectResponse(await send('/api/does-not-exist', { key }), 404, NOT_FOUND, 'unknown path with a key');
        expectResponse(await createJob({}, key), 400, MISSING_JOB, 'no job, with a key');
        expectResponse(await jobStatus(unknownKey), 401, UNAUTHORIZED, 'an unknown key');
        expectResponse(await jobStatus(undefined), 401, UNAUTHORIZED, 'no key');
        expectResponse(await createJob({ job: 'x'.repeat(2 * BODY_LIMIT) }, key), 413, TOO_LARGE, 'too large, with a key');
        const unsafe = await fetch(`${gateway!.url}/api/ping`, { headers: { 'x-request-id': 'has spaces and ;' } });
        expect(unsafe.status).to.equal(200);
        await unsafe.text();
        requestIds.push(unsafe.headers.get('x-request-id')!);
        const mine = requestIds.slice(sent);
        expect(mine, 'request ids of its own traffic').to.have.length(7);

        const code = await gateway!.stop();
        stopped = true;
        expect(code).to.equal(0);

        // Complete once the process has exited. Every request of the suite (this test's, and the
        // earlier tests' when they ran) has exactly one line, and there is no other.
        const logs = gateway!.logs;
        const requestLines = logs.filter(
          (line): line is Record<string, unknown> => typeof line === 'object' && (line.msg === 'request' || line.msg === 'request failed'),
        );
        expect(new Set(requestIds).size, 'request ids are unique').to.equal(requestIds.length);
        for (const id of requestIds) {
          const lines = requestLines.filter((line) => line.reqId === id);
          expect(lines.length, `request lines with reqId ${id}`).to.equal(1);
        }
        expect(requestLines.length, 'request lines in all').to.equal(requestIds.length);
        const text = logs.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
        for (const secret of secrets) expect(text.includes(secret), `a key text is in the log`).to.equal(false);
      });
    });
  });
};

// ---------------------------------------------------------------------------------------------

describeFoundation('embedded', async () => {
  const dataDir = await migratedDataDir('e2e-foundation-data');
  const triggersFile = join(await tempDir('e2e-foundation-triggers'), 'none.json');
  return { env: { DATA_DIR: dataDir, TRIGGERS_FILE: triggersFile }, cleanup: async () => undefined };
});

describeWithPostgres('e2e: foundation (PostgreSQL)', () => {
  describeFoundation('postgres', async () => {
    const database: ScratchDatabase = await createScratchDatabase();
    const dataDir = await tempDir('e2e-foundation-pg-data');
    const triggersFile = join(await tempDir('e2e-foundation-pg-triggers'), 'none.json');
    return { env: { DATABASE_URL: database.url, DATA_DIR: dataDir, TRIGGERS_FILE: triggersFile }, cleanup: () => database.drop() };
  });
});

describe('e2e: start-up and the CLI without a server', function () {
  this.timeout(30_000);

  it('PORT=notaport: the server exits non-zero and names PORT', async () => {
    const dataDir = await tempDir('e2e-foundation-badport');
    let failure: Error | undefined;
    let started: GatewayProcess | undefined;
    try {
      started = await startGateway({ DATA_DIR: dataDir, PORT: 'notaport' });
    } catch (error) {
      failure = error as Error;
    } finally {
      await started?.kill();
    }
    expect(failure, 'startGateway must reject').to.be.instanceOf(Error);
    const exit = /gateway exited with (\S+)/.exec(failure!.message);
    expect(exit, failure!.message).to.not.equal(null);
    expect(exit![1], failure!.message).to.not.equal('0');
    expect(exit![1], failure!.message).to.not.equal('null');
    expect(failure!.message).to.include('PORT');
    expect(failure!.message).to.include('notaport');
  });

  it('keys create then keys list work on an embedded DATA_DIR with no server running', async function () {
    this.timeout(60_000);
    const env = { DATA_DIR: await migratedDataDir('e2e-foundation-noserver') };
    const created = await createKeyWithCli(env, 'offline');
    const { keys, stdout } = await listKeysWithCli(env);
    expect(keys.map((k) => ({ id: k.id, name: k.name }))).to.deep.equal([{ id: created.id, name: 'offline' }]);
    expect(keys[0].prefix).to.equal(created.key.slice(0, 8));
    expect(stdout).to.not.include(created.key);
  });
});
