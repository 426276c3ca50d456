import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { expect } from 'chai';
import type { CliIo } from '../../src/cli/cli-io.js';
import type { DatabaseTarget } from '../../src/cli/database-target.js';
import { type StartingServer, startStandInServer } from '../support/starting-server.js';
import { tempDir } from '../support/gateway-process.js';

/**
 * The CLI's entry, imported as the CLI imports the commands' modules (dynamically), so that both
 * share one copy of each module: under the test runner a static import loads another, whose
 * CliFailure the commands' is not (run-cli.ts would print it as an unexpected 'Error: …').
 */
const cliEntry = () => import('../../src/cli/run-cli.js');
/*
 * Every command that uses the embedded database, while a server on it is starting: the command
 * found no server holding the database (its lock file not yet written), so it went to open the
 * database itself — and the server took it meanwhile. The open then failed ("in use by process
 * N", exit 1) though the server would answer in a moment; the command now goes through that
 * server, waiting for its admin socket as for any starting server (on-database.ts). The race is
 * made by the CLI's seam: the stand-in server takes the lock once the command has looked.
 */
describe('the CLI commands and a server that starts meanwhile', function () {
  this.timeout(60_000);
  const ID = '10000000-0000-4000-8000-000000000001';
  const SETTINGS = ['DATA_DIR', 'DATABASE_URL', 'TRIGGERS_FILE', 'CRONS_FILE'] as const;
  let saved: Partial<Record<(typeof SETTINGS)[number], string>>;
  let server: StartingServer | undefined;

  beforeEach(() => {
    saved = {};
    for (const name of SETTINGS) saved[name] = process.env[name];
  });
  afterEach(async () => {
    for (const name of SETTINGS) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await server?.stop();
    server = undefined;
  });

  /**
   * Runs `argv` in this process on a new DATA_DIR: a server starts after the command looked for
   * one, and opens its socket once the command waits for it.
   */
  const runWhileAServerStarts = async (argv: string[], input = ''): Promise<{ code: number; out: string; err: string; looked: DatabaseTarget[] }> => {
    const dataDir = await tempDir('cli-race');
    const files = await tempDir('cli-race-files');
    process.env.DATA_DIR = dataDir;
    delete process.env.DATABASE_URL;
    // None: the service runs no triggers and no schedules.
    process.env.TRIGGERS_FILE = join(files, 'TRIGGERS.json');
    process.env.CRONS_FILE = join(files, 'CRONS.json');
    const looked: DatabaseTarget[] = [];
    let out = '';
    let err = '';
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (err.includes('waiting for the server')) server?.openSoon();
    });
    const io: CliIo = {
      out: stdout,
      err: stderr,
      input: new PassThrough().end(input),
      afterLook: async (target) => {
        looked.push(target);
        server = await startStandInServer(dataDir);
      },
    };
    const code = await (await cliEntry()).runCli(argv, io);
    return { code, out, err, looked };
  };

  const cases: Array<{ argv: string[]; input?: string; asked: string; answer: (pid: number) => string }> = [
    { argv: ['keys', 'revoke', ID], asked: `revoked ${ID}`, answer: () => `Revoked key ${ID}\n` },
    { argv: ['keys', 'list'], asked: 'listed keys', answer: () => 'No API keys. Create one with: agent-gateway keys create --name NAME\n' },
    {
      argv: ['admin', 'set-password'],
      input: 'a password long enough\n',
      asked: 'password set',
      answer: () => 'Admin password set; every admin session has ended. Open /settings to log in.\n',
    },
    { argv: ['migrate'], asked: 'migrations', answer: () => 'Database is up to date\n' },
    { argv: ['reload'], asked: 'reloaded', answer: (pid) => `reloaded by the running server (pid ${pid}): 2 triggers, 1 schedule\n` },
    { argv: ['deliveries', 'list'], asked: 'listed deliveries', answer: () => 'No stored deliveries match.\n' },
    { argv: ['deliveries', 'show', ID], asked: `showed ${ID}`, answer: () => `Delivery ${ID}: /api/webhook, received 1970-01-01T00:00:00.000Z\n` },
    {
      argv: ['deliveries', 'replay', ID],
      asked: `replayed ${ID}`,
      answer: () => `Replayed ${ID} as 20000000-0000-4000-8000-000000000002: fired t\n`,
    },
  ];

  for (const { argv, input, asked, answer } of cases) {
    it(`${argv.join(' ')} goes through the server that took the database after the command looked, once`, async () => {
      const { code, out, err, looked } = await runWhileAServerStarts(argv, input);
      const pid = server?.pid as number;
      expect(looked.map((target) => target.kind)).to.deep.equal(['embedded']);
      expect({ code, err }).to.include({ code: 0 });
      expect(out).to.include(answer(pid));
      const dataDir = process.env.DATA_DIR as string;
      expect(err).to.include(`a server (pid ${pid}) took the embedded database in ${dataDir} meanwhile (it is starting): going through it instead\n`);
      expect(err).to.include(`waiting for the server (pid ${pid}) to finish starting…\n`);
      await server?.saying(`${asked}\n`);
      expect(
        server
          ?.said()
          .split('\n')
          .filter((line) => line === asked),
      ).to.have.length(1);
    });
  }
});
