import { copyFile, link, realpath, writeFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { expect } from 'chai';
import { type StartingServer, startStandInServer } from '../support/starting-server.js';
import { tempDir } from '../support/gateway-process.js';

/**
 * The CLI's entry, imported as the CLI imports the commands' modules (dynamically), so that both
 * share one copy of each module: under the test runner a static import loads another, whose
 * CliFailure the commands' is not (run-cli.ts would print it as an unexpected 'Error: …').
 */
const cliEntry = () => import('../../src/cli/run-cli.js');
/*
 * A copy of a DATA_DIR whose server runs, made with what that server keeps there: its lock file
 * (it names the server's live pid) and its admin socket — a hard link to it (`cp -al`) reaches
 * that server. `keys list` on the copy listed the ORIGINAL's keys (and `keys create` or `revoke`
 * would have changed them); with a plain copy of the socket it waited 30 s for a server that
 * never answers. The CLI now tells the copy: by the lock file, which records the directory it
 * was written for, and by the server, which says which directory it serves.
 */
describe('the CLI on a copy of a DATA_DIR whose server runs', function () {
  this.timeout(60_000);
  const SETTINGS = ['DATA_DIR', 'DATABASE_URL'] as const;
  let saved: Partial<Record<(typeof SETTINGS)[number], string>>;
  let server: StartingServer | undefined;
  let original: string;
  let copy: string;

  beforeEach(async () => {
    saved = {};
    for (const name of SETTINGS) saved[name] = process.env[name];
    delete process.env.DATABASE_URL;
    original = await tempDir('cli-race-original');
    copy = await tempDir('cli-race-copy');
    server = await startStandInServer(original);
    await server.open();
    // The copy, made with the lock file and a link to the socket (cp -al).
    await link(join(original, 'admin.sock'), join(copy, 'admin.sock'));
  });
  afterEach(async () => {
    for (const name of SETTINGS) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await server?.stop();
    server = undefined;
  });

  const run = async (dataDir: string, argv: string[]): Promise<{ code: number; out: string; err: string }> => {
    process.env.DATA_DIR = dataDir;
    let out = '';
    let err = '';
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await (await cliEntry()).runCli(argv, { out: stdout, err: stderr, input: new PassThrough().end() });
    return { code, out, err };
  };

  /**
   * How often the stand-in was asked for its keys: once the original's own `keys list` has
   * reached it, a list sent earlier (from the copy) would have been said before.
   */
  const listsAnswered = async (): Promise<number> => {
    expect((await run(original, ['keys', 'list'])).code).to.equal(0);
    await server?.saying('listed keys\n');
    return (server?.said() ?? '').split('\n').filter((line) => line === 'listed keys').length;
  };

  it("is refused at once by the copied lock file, naming the original and what to do; nothing reaches the original's server", async () => {
    await copyFile(join(original, 'embedded.pid'), join(copy, 'embedded.pid'));
    const { code, out, err } = await run(copy, ['keys', 'list']);
    const pid = server?.pid as number;
    const lockFile = join(copy, 'embedded.pid');
    expect({ code, out }).to.deep.equal({ code: 1, out: '' });
    expect(err).to.equal(
      `DATA_DIR: ${copy} is most likely a copy of ${await realpath(original)}, made with its lock file ${lockFile}: process ${pid} serves ${await realpath(original)}, not this directory, and nothing was sent to it. ` +
        `If process ${pid} runs on ${await realpath(original)} only (its "agent gateway listening" log line names its dataDir), remove ${lockFile} and run the command again; ` +
        'a copy made while that process ran may be inconsistent: copy a stopped DATA_DIR, or a snapshot\n',
    );
    expect(await listsAnswered()).to.equal(1);
  });

  it('is refused by the server reached through the linked socket, which serves another directory (a lock file that records none)', async () => {
    // As an older version wrote it: the pid alone, no directory to compare.
    await writeFile(join(copy, 'embedded.pid'), `${server?.pid}\n`);
    const { code, out, err } = await run(copy, ['keys', 'list']);
    const pid = server?.pid as number;
    const socket = join(copy, 'admin.sock');
    expect({ code, out }).to.deep.equal({ code: 1, out: '' });
    expect(err).to.include(`using the embedded database in ${copy} (through the running server, pid ${pid})\n`);
    expect(err).to.not.include('Error:');
    expect(err).to.include(
      `DATA_DIR: ${copy} is most likely a copy of ${await realpath(original)}, made with a link to its admin socket ${socket}: process ${pid} serves ${await realpath(original)}, not this directory, and nothing was sent to it. ` +
        `If process ${pid} runs on ${await realpath(original)} only (its "agent gateway listening" log line names its dataDir), remove ${socket} and ${join(copy, 'embedded.pid')} and run the command again;`,
    );
    expect(await listsAnswered()).to.equal(1);
  });

  it('still goes through the server of the directory itself, reached through a symbolic link to it', async () => {
    const linked = join(await tempDir('cli-race-link'), 'data');
    const { symlink } = await import('node:fs/promises');
    await symlink(original, linked);
    const { code, out } = await run(linked, ['keys', 'list']);
    expect({ code, out }).to.deep.equal({ code: 0, out: 'No API keys. Create one with: agent-gateway keys create --name NAME\n' });
  });
});
