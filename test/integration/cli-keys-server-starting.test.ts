import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { expect } from 'chai';
import { withKeysAt } from '../../src/cli/keys-command.js';
import { loadConfig } from '../../src/container/config.js';
import { tempDir } from '../support/gateway-process.js';

/*
 * `keys revoke` (and create, list) while a server on the embedded database is starting: the
 * command found no server holding the database (its lock file not yet written), so it opened
 * the database itself — and the server took it meanwhile. The open then failed ("in use by
 * process N", exit 1) though the server would answer in a moment; the command now goes through
 * that server, waiting for its admin socket as for any starting server.
 */
describe('the keys commands and a server that starts meanwhile', function () {
  this.timeout(60_000);
  let child: ChildProcessWithoutNullStreams | undefined;

  afterEach(async () => {
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.stdin.end();
      const killer = setTimeout(() => child?.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    }
    child = undefined;
  });

  /** The stand-in server (starting-server-child.ts): resolves once it holds the lock, with what it says on stdout so far. */
  const startServer = async (dataDir: string): Promise<{ said: () => string; saying: (text: string) => Promise<void> }> => {
    const started = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'support', 'starting-server-child.ts'), dataDir], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child = started;
    let out = '';
    let err = '';
    const waiting: Array<() => void> = [];
    started.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      for (const wake of waiting.splice(0)) wake();
    });
    started.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const saying = async (text: string): Promise<void> => {
      while (!out.includes(text)) {
        if (started.exitCode !== null) throw new Error(`the stand-in server ended: ${err}`);
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    };
    started.once('exit', () => {
      for (const wake of waiting.splice(0)) wake();
    });
    await saying('locked\n');
    return { said: () => out, saying };
  };

  it('goes through the server that took the database after the command looked (waiting for its socket, saying so), and revokes once', async () => {
    const dataDir = await tempDir('keys-starting');
    const config = loadConfig({ DATA_DIR: dataDir }, dataDir);
    // What the command saw before the server took the lock: no server, no database yet.
    const target = { kind: 'embedded', dataDir, exists: false } as const;
    const server = await startServer(dataDir);
    const err = new PassThrough();
    let said = '';
    err.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      // Its socket opens once the command waits for it, as at the end of a server's start.
      if (said.includes('waiting for the server')) child?.stdin.write('open\n');
    });
    const io = { out: new PassThrough(), err, input: new PassThrough() };
    const id = '10000000-0000-4000-8000-000000000001';
    await withKeysAt(io, config, target, (keys) => keys.revoke(id));
    await server.saying(`revoked ${id}\n`);
    expect(server.said().match(/revoked /g)).to.have.length(1);
    const pid = child?.pid;
    expect(said).to.include(`a server (pid ${pid}) took the embedded database in ${dataDir} meanwhile (it is starting): going through it instead\n`);
    expect(said).to.include(`waiting for the server (pid ${pid}) to finish starting…\n`);
  });
});
