import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { type AdminOperations, AdminSocketServer } from '../../src/adapters/http/admin-socket/admin-socket-server.js';
import type { KeyAdministration } from '../../src/application/auth/api-key-administration.js';
import { connectToServer } from '../../src/cli/database-access.js';
import { CliFailure } from '../../src/cli/usage-error.js';
import { RecordingLogger } from '../fakes/recording-logger.js';
import { tempDir } from '../support/gateway-process.js';

/*
 * How the CLI reaches a server that holds the embedded database: at once when its socket
 * answers, after waiting while the server is still starting (it holds the database before its
 * socket opens), and with one line when it never answers or stops meanwhile.
 */

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

  const target = () => ({ kind: 'server', dataDir, pid: 4242, socketPath: join(dataDir, 'admin.sock') }) as const;

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
    expect(io.said()).to.equal('waiting for the server (pid 4242) to finish starting…\n');
  });

  it('gives up with one line naming the process and the socket when it never answers', async () => {
    const refused = await failure(connectToServer(target(), io, { waitMs: 30, pollMs: 5, alive: () => true }));
    expect(refused.message).to.equal(
      `The server (pid 4242) holds the embedded database in ${dataDir} but its admin socket ${target().socketPath} does not answer (ENOENT); stop that process or try again`,
    );
  });

  it('says so when the server stops before it answered', async () => {
    const refused = await failure(connectToServer(target(), io, { pollMs: 5, alive: () => false }));
    expect(refused.message).to.equal('The server (pid 4242) stopped before it answered; run the command again');
  });
});
