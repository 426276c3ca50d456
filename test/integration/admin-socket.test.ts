import { expect } from 'chai';
import { realpath, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { AdminSocketClient } from '../../src/adapters/http/admin-socket/admin-socket-client.js';
import { AdminSocketServer, type ReloadReport } from '../../src/adapters/http/admin-socket/admin-socket-server.js';
import type { KeyAdministration } from '../../src/application/auth/api-key-administration.js';
import type { CreatedApiKey } from '../../src/application/auth/create-api-key.js';
import type { ApiKeySummary } from '../../src/domain/auth/api-key-record.js';
import { DomainError } from '../../src/domain/errors/domain-error.js';
import { RecordingLogger } from '../fakes/recording-logger.js';
import { tempDir } from '../support/gateway-process.js';

const SECRET = 'postgres://agw:s3cr3t-password@db/agw';

const notUsedHere = async (): Promise<never> => {
  throw new Error('not used by these tests');
};

/** Keys in memory; a name of `explode` fails as a library would, `bad` as the core does. */
class MemoryKeys implements KeyAdministration {
  readonly keys: ApiKeySummary[] = [];
  readonly passwords: string[] = [];
  async create(name: string): Promise<CreatedApiKey> {
    if (name === 'explode') throw new Error(`connect ECONNREFUSED ${SECRET}`);
    if (typeof name !== 'string' || name === 'bad') throw new DomainError('invalid_input', 'Key name must be 1–100 characters');
    const key = { id: `id-${this.keys.length + 1}`, name, prefix: 'agw_abcd', createdAt: new Date('2025-01-02T03:04:05Z'), lastUsedAt: null };
    this.keys.push(key);
    return { ...key, key: 'agw_secret' };
  }
  async list(): Promise<ApiKeySummary[]> {
    return this.keys;
  }
  async revoke(id: string): Promise<void> {
    const index = this.keys.findIndex((key) => key.id === id);
    if (index === -1) throw new DomainError('not_found', `No key ${id}`);
    this.keys.splice(index, 1);
  }
}

/** A raw request on the socket: status and parsed answer. */
const raw = (path: string, method: string, headers: Record<string, string>, body: string, route = '/keys'): Promise<{ status: number; body: unknown }> =>
  new Promise((resolve, reject) => {
    const req = request({ socketPath: path, method, path: route, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(body);
  });

describe('admin socket (server and client over a Unix socket)', () => {
  let server: AdminSocketServer | undefined;
  let socket: string;
  let keys: MemoryKeys;
  let logger: RecordingLogger;
  let client: AdminSocketClient;

  beforeEach(async () => {
    socket = join(await tempDir('admin-socket'), 'admin.sock');
    keys = new MemoryKeys();
    logger = new RecordingLogger();
    server = await AdminSocketServer.listen(
      socket,
      keys,
      {
        setAdminPassword: async (password) => void keys.passwords.push(password),
        migrations: async () => ({ appliedAtStart: ['Migration2_b'], recorded: ['Migration1_a', 'Migration2_b'] }),
        reload: notUsedHere,
        deliveries: { list: notUsedHere, show: async (id) => Promise.reject(new DomainError('not_found', `No stored request with id ${id}`)) },
        replay: async (id) => Promise.reject(new DomainError('not_found', `No stored request with id ${id}`)),
      },
      logger,
    );
    client = new AdminSocketClient(socket);
  });
  afterEach(() => server?.close());

  it('is owner-only and serves create, list, revoke and the admin password', async () => {
    expect((await stat(socket)).mode & 0o777).to.equal(0o600);
    expect(await client.reachable()).to.equal(true);
    const created = await client.create('ci');
    expect(created).to.deep.include({ name: 'ci', key: 'agw_secret' });
    expect(created.createdAt).to.be.instanceOf(Date);
    expect((await client.list()).map((key) => key.name)).to.deep.equal(['ci']);
    await client.revoke(created.id);
    expect(await client.list()).to.deep.equal([]);
    await client.setAdminPassword('a long admin password');
    expect(keys.passwords).to.deep.equal(['a long admin password']);
  });

  it('says which process answers and which data directory it serves, and what the server applied at its start and the database records', async () => {
    // The directory the socket is in (adminSocketPath puts it in DATA_DIR): its real path and dev:ino.
    const dir = await stat(dirname(socket));
    expect(await client.status()).to.deep.equal({ pid: process.pid, dataDir: { path: await realpath(dirname(socket)), id: `${dir.dev}:${dir.ino}` } });
    expect(await client.migrations()).to.deep.equal({ appliedAtStart: ['Migration2_b'], recorded: ['Migration1_a', 'Migration2_b'] });
  });

  it('rejects with the connection error when no server listens (the CLI then waits for a starting server or says so)', async () => {
    const nobody = new AdminSocketClient(join(await tempDir('admin-socket-none'), 'admin.sock'));
    const error = await nobody.status().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).to.include({ code: 'ENOENT' });
    expect(await nobody.reachable()).to.equal(false);
  });

  it("hands the core's errors back with their code and message, answered by the one error table", async () => {
    const invalid = await client.create('bad').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(invalid).to.be.instanceOf(DomainError).and.to.include({ code: 'invalid_input', message: 'Key name must be 1–100 characters' });
    const missing = await client.revoke('nope').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(missing).to.include({ code: 'not_found', message: 'No key nope' });
    expect(await raw(socket, 'POST', { 'content-type': 'application/json' }, '{"name":"bad"}')).to.deep.equal({
      status: 400,
      body: { code: 'invalid_input', error: 'Key name must be 1–100 characters' },
    });
  });

  it('sends each id as one path segment of its own route: never empty, a dot-segment or a slash that lands on another', async () => {
    const failure = (call: Promise<unknown>): Promise<unknown> =>
      call.then(
        () => undefined,
        (error: unknown) => error,
      );
    for (const call of [() => client.delivery(''), () => client.replay(''), () => client.revoke('')])
      expect(await failure(call()))
        .to.be.instanceOf(DomainError)
        .and.to.include({ code: 'invalid_input', message: 'The id is empty' });
    for (const id of ['.', '..', 'a/replay', '../keys', '?limit=1', '#x', '%2E%2E'])
      for (const call of [() => client.delivery(id), () => client.replay(id)])
        expect(await failure(call()), id).to.include({ code: 'not_found', message: `No stored request with id ${id}` });
    for (const id of ['..', '.', 'x/y']) expect(await failure(client.revoke(id)), id).to.include({ code: 'not_found', message: `No key ${id}` });
  });

  it("answers a library's failure as Internal server error, its text only in the log", async () => {
    const failure = await client.create('explode').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).to.include({ code: 'internal', message: 'Internal server error' });
    expect(JSON.stringify(failure)).not.to.contain('s3cr3t');
    const logged = logger.entries.find((entry) => entry.level === 'error');
    expect((logged?.fields as { err?: Error } | undefined)?.err?.message).to.contain(SECRET);
  });

  it('refuses malformed JSON (400), a body over 16 KiB (413) and another content type (415)', async () => {
    const json = { 'content-type': 'application/json' };
    expect(await raw(socket, 'POST', json, '{"name":')).to.deep.equal({
      status: 400,
      body: { code: 'invalid_input', error: 'Invalid JSON body: unexpected end of the body at line 1 column 9' },
    });
    expect(await raw(socket, 'POST', json, JSON.stringify({ name: 'x'.repeat(17 * 1024) }))).to.deep.equal({
      status: 413,
      body: { code: 'payload_too_large', error: 'Request body is larger than 16384 bytes' },
    });
    expect((await raw(socket, 'POST', { 'content-type': 'text/plain' }, 'name=x')).status).to.equal(415);
    expect(keys.keys).to.deep.equal([]);
  });

  describe('closing with clients connected (schedules attacker pass)', () => {
    /** A raw connection that sent `bytes` and waits; resolves once the server dropped it. */
    const stuckClient = async (bytes: string): Promise<{ dropped: Promise<void> }> => {
      const connection = connect(socket);
      connection.on('error', () => undefined);
      await new Promise((connected) => connection.once('connect', connected));
      const dropped = new Promise<void>((done) => connection.once('close', () => done()));
      if (bytes !== '') connection.write(bytes);
      // The server has read what was sent once it answers another request after it.
      await client.status();
      return { dropped };
    };

    for (const [what, bytes] of [
      ['sent nothing', ''],
      ['sent half a request', 'POST /reload HTTP/1.1\r\nHost: localhost\r\n'],
    ] as const)
      it(`drops at once a client that ${what}: a stuck CLI does not hold the service's stop`, async () => {
        const { dropped } = await stuckClient(bytes);
        await server?.close(60_000);
        server = undefined;
        await dropped;
      });

    it('lets a request being answered finish, and drops one whose body never comes after the grace period', async () => {
      await server?.close();
      let finish!: (report: ReloadReport) => void;
      const reloading = new Promise<ReloadReport>((resolve) => (finish = resolve));
      let asked!: () => void;
      const reloadAsked = new Promise<void>((resolve) => (asked = resolve));
      server = await AdminSocketServer.listen(
        socket,
        keys,
        {
          setAdminPassword: notUsedHere,
          migrations: notUsedHere,
          reload: () => {
            asked();
            return reloading;
          },
          deliveries: { list: notUsedHere, show: notUsedHere },
          replay: notUsedHere,
        },
        logger,
      );
      const answer = raw(socket, 'POST', {}, '', '/reload');
      await reloadAsked;
      const { dropped } = await stuckClient('POST /keys HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na');
      const closing = server.close(200);
      server = undefined;
      finish({ ok: true, problems: [], triggers: 1, schedules: 2 });
      expect(await answer).to.deep.equal({ status: 200, body: { ok: true, problems: [], triggers: 1, schedules: 2 } });
      await dropped;
      await closing;
    });
  });

  it('takes only a string as the admin password: a number too large for a double (kept as its text) is no password, not a crash', async () => {
    const answer = await raw(socket, 'POST', { 'content-type': 'application/json' }, '{"password":123456789012345678901234567890}', '/admin-password');
    expect(answer).to.deep.equal({ status: 200, body: { ok: true } });
    expect(keys.passwords).to.deep.equal(['']);
  });
});
