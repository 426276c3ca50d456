import { expect } from 'chai';
import { chmod, chown, writeFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { AdminSocketClient, checkAdminSocket, UntrustedAdminSocket } from '../../src/adapters/http/admin-socket/admin-socket-client.js';
import { type AdminOperations, AdminSocketServer } from '../../src/adapters/http/admin-socket/admin-socket-server.js';
import type { KeyAdministration } from '../../src/application/auth/api-key-administration.js';
import { connectToServer } from '../../src/cli/database-access.js';
import { CliFailure } from '../../src/cli/usage-error.js';
import { RecordingLogger } from '../fakes/recording-logger.js';
import { tempDir } from '../support/gateway-process.js';

/*
 * How the CLI reaches a server that holds the embedded database: at once when its socket
 * answers, after waiting while the server is still starting (it holds the database before its
 * socket opens), and with one line when it never answers or stops meanwhile. It sends nothing to
 * a socket it cannot trust: in a DATA_DIR others can write, owned by another account, or
 * answered by another process than the lock file names.
 */

const isRoot = process.getuid?.() === 0;
const ROOT_ONLY = isRoot ? '' : ' — pending: chown needs root, and these tests do not run as root';

const NO_KEYS: KeyAdministration = {
  create: () => Promise.reject(new Error('unused')),
  list: async () => [],
  revoke: async () => undefined,
};
const notUsedHere = async (): Promise<never> => {
  throw new Error('not used by these tests');
};
const OPERATIONS: AdminOperations = {
  setAdminPassword: async () => undefined,
  migrations: async () => ({ appliedAtStart: [], recorded: [] }),
  reload: notUsedHere,
  deliveries: { list: notUsedHere, show: notUsedHere },
  replay: notUsedHere,
};

const failure = async (promise: Promise<unknown>): Promise<CliFailure> => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).to.be.instanceOf(CliFailure);
  return error as CliFailure;
};

describe('the CLI reaching the running server', () => {
  let server: AdminSocketServer | undefined;
  let dataDir: string;
  let io: { out: PassThrough; err: PassThrough; input: PassThrough; said: () => string };

  beforeEach(async () => {
    dataDir = await tempDir('cli-connect');
    const err = new PassThrough();
    let said = '';
    err.on('data', (chunk: Buffer) => (said += chunk.toString()));
    io = { out: new PassThrough(), err, input: new PassThrough(), said: () => said };
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** The lock file names this process by default: the test's server is in it. */
  const target = (pid = process.pid) => ({ kind: 'server', dataDir, pid, socketPath: join(dataDir, 'admin.sock') }) as const;

  it('connects at once to a server that answers', async () => {
    server = await AdminSocketServer.listen(target().socketPath, NO_KEYS, OPERATIONS, new RecordingLogger());
    const client = await connectToServer(target(), io, { alive: () => true });
    expect(await client.list()).to.deep.equal([]);
    expect(io.said()).to.equal('');
  });

  it('waits for a server that is still starting, saying so once', async () => {
    let polls = 0;
    const client = await connectToServer(target(), io, {
      pollMs: 5,
      // The socket opens after a few polls, as at the end of a server's start.
      alive: () => {
        polls++;
        if (polls === 3) void AdminSocketServer.listen(target().socketPath, NO_KEYS, OPERATIONS, new RecordingLogger()).then((s) => (server = s));
        return true;
      },
    });
    expect(await client.reachable()).to.equal(true);
    expect(io.said()).to.equal(`waiting for the server (pid ${process.pid}) to finish starting…\n`);
  });

  it('gives up with one line naming the process and the socket when it never answers', async () => {
    const refused = await failure(connectToServer(target(4242), io, { waitMs: 30, pollMs: 5, alive: () => true }));
    expect(refused.message).to.equal(
      `The server (pid 4242) holds the embedded database in ${dataDir} but its admin socket ${target().socketPath} does not answer (ENOENT); stop that process or try again`,
    );
  });

  it('says so when the server stops before it answered', async () => {
    const refused = await failure(connectToServer(target(4242), io, { pollMs: 5, alive: () => false }));
    expect(refused.message).to.equal('The server (pid 4242) stopped before it answered; run the command again');
  });

  it('refuses a DATA_DIR other accounts can write, before connecting: one line naming it, its mode and the fix', async () => {
    server = await AdminSocketServer.listen(target().socketPath, NO_KEYS, OPERATIONS, new RecordingLogger());
    await chmod(dataDir, 0o777);
    const refused = await failure(connectToServer(target(), io, { alive: () => true }));
    expect(refused.message).to.equal(
      `DATA_DIR: ${dataDir} (mode 0777) is writable by other accounts, who could replace what the service keeps there (its admin socket, lock file, database, job worktrees); make it owner-only: chmod 700 ${dataDir}`,
    );
  });

  it('refuses a server that is not the process the lock file names, sending it nothing more', async () => {
    server = await AdminSocketServer.listen(target().socketPath, NO_KEYS, OPERATIONS, new RecordingLogger());
    const refused = await failure(connectToServer(target(4242), io, { alive: () => true }));
    expect(refused.message).to.equal(
      `The admin socket ${target().socketPath} answers for process ${process.pid}, but the lock file ${join(dataDir, 'embedded.pid')} names process 4242: nothing was sent to it; run the command again, and if this persists stop the server and restart it`,
    );
  });

  it('refuses something at the socket path that is not a socket', async () => {
    await writeFile(target().socketPath, '', { mode: 0o600 });
    const refused = await failure(connectToServer(target(), io, { alive: () => true }));
    expect(refused.message).to.equal(`${target().socketPath} is not a socket: it is not the server's admin socket; remove it and restart the server`);
  });

  (isRoot ? it : it.skip)(`refuses a socket another account bound (its owner), without connecting${ROOT_ONLY}`, async () => {
    server = await AdminSocketServer.listen(target().socketPath, NO_KEYS, OPERATIONS, new RecordingLogger());
    await chown(target().socketPath, 12345, 12345);
    const refused = await failure(connectToServer(target(), io, { alive: () => true }));
    expect(refused.message).to.equal(
      `The admin socket ${target().socketPath} is owned by uid 12345, not by uid 0 (the account that runs the service): another account may have put it there; nothing was sent to it — check who can write its directory, remove it and restart the server`,
    );
  });

  (isRoot ? it : it.skip)(`as root, accepts the socket of DATA_DIR's owner (sudo beside a service account)${ROOT_ONLY}`, async () => {
    server = await AdminSocketServer.listen(target().socketPath, NO_KEYS, OPERATIONS, new RecordingLogger());
    await chown(dataDir, 12345, 12345);
    await chown(target().socketPath, 12345, 12345);
    const client = await connectToServer(target(), io, { alive: () => true });
    expect(await client.list()).to.deep.equal([]);
  });

  (isRoot ? it : it.skip)(`checks the owner before every request: a socket replaced after connecting gets no password${ROOT_ONLY}`, async () => {
    const passwords: string[] = [];
    server = await AdminSocketServer.listen(
      target().socketPath,
      NO_KEYS,
      { ...OPERATIONS, setAdminPassword: async (p) => void passwords.push(p) },
      new RecordingLogger(),
    );
    const client = await connectToServer(target(), io, { alive: () => true });
    // Another account's socket now stands at the path (here: the same server's, given to uid 12345).
    await chown(target().socketPath, 12345, 12345);
    const error = await client.setAdminPassword('a long admin password').then(
      () => undefined,
      (caught: unknown) => caught,
    );
    // By name: the CLI loads the client with a dynamic import, which tsx may load as another module instance.
    expect(error).to.have.property('name', 'UntrustedAdminSocket');
    expect(passwords).to.deep.equal([]);
  });

  it("checkAdminSocket: the socket must be one of the owners'; a missing one rejects with ENOENT (a server still starting)", async () => {
    server = await AdminSocketServer.listen(target().socketPath, NO_KEYS, OPERATIONS, new RecordingLogger());
    const me = process.getuid?.() ?? 0;
    await checkAdminSocket(target().socketPath, [me]);
    const other = await checkAdminSocket(target().socketPath, [me + 1]).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(other)
      .to.be.instanceOf(UntrustedAdminSocket)
      .and.to.have.property('message')
      .that.includes(`is owned by uid ${me}, not by uid ${me + 1}`);
    expect(await new AdminSocketClient(join(dataDir, 'none.sock'), [me]).status().catch((caught: unknown) => caught)).to.include({ code: 'ENOENT' });
  });
});
