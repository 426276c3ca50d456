import { expect } from 'chai';
import { type ChildProcess, execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { itAsRoot, NOBODY } from '../support/accounts.js';
import {
  GatewayStartFailure,
  type NpmStartedService,
  processGone,
  runToExit,
  startUnderNpm,
  startGateway,
  startGatewayExpectingExit,
  tempDir,
  type ExitedProcess,
  type GatewayProcess,
} from '../support/gateway-process.js';
import { emptyPgliteDir, migratedDataDir, openPglite } from '../support/data-dirs.js';
import { send, waitFor } from '../support/http.js';
import { closedPort, occupyPort } from '../support/ports.js';
import { createScratchDatabase, describeWithPostgres, postgres } from '../support/postgres.js';

/*
 * End-to-end: what an operator sees when the built server (`node dist/main.js`) cannot start.
 * Each cause ends the process by itself with exit code 1 and one line on stderr that names the
 * setting to fix; the observable end is the process's exit (a supervisor's restart-on-failure
 * depends on it). The time each run took is in its ExitedProcess (`ms`), not asserted: the
 * machine's load decides it.
 */

const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Exit code 1 and exactly one line on stderr, matching `line`; returns that line. */
const expectOneLineFailure = (result: ExitedProcess, line: RegExp): string => {
  const what = `exit ${result.code} after ${Math.round(result.ms)} ms; stderr:\n${result.stderr}\nstdout:\n${result.stdout}`;
  expect(result.code, what).to.equal(1);
  const lines = result.stderr.split('\n').filter((l) => l !== '');
  expect(lines, what).to.have.length(1);
  expect(lines[0], what).to.match(line);
  return lines[0];
};

const databaseExists = async (name: string): Promise<boolean> => {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    return (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
};

/** SERVER_URL with another database name (and a password, which must never be printed). */
const urlFor = (database: string, password = 'do-not-print-me'): string => {
  const url = new URL(SERVER_URL);
  url.pathname = `/${database}`;
  url.password = password;
  return url.toString();
};

describe('e2e: start-up failures end the process with one line naming the setting', function () {
  this.timeout(60_000);

  let triggersFile: string;
  before(async () => {
    triggersFile = join(await tempDir('startup-triggers'), 'none.json');
  });

  describe('port in use', () => {
    let held: { port: number; close(): Promise<void> } | undefined;
    beforeEach(async () => {
      held = await occupyPort();
    });
    afterEach(async () => {
      await held?.close();
    });

    it('on the embedded database: exit 1, "PORT: 127.0.0.1:N is already in use", and the data directory is released', async () => {
      const dataDir = await tempDir('startup-port-embedded');
      const result = await startGatewayExpectingExit({ DATA_DIR: dataDir, TRIGGERS_FILE: triggersFile, PORT: String(held!.port) });
      expectOneLineFailure(result, new RegExp(`^PORT: 127\\.0\\.0\\.1:${held!.port} is already in use \\(EADDRINUSE\\)`));
      expect(existsSync(join(dataDir, 'embedded.pid')), 'the embedded database is still locked').to.equal(false);
    });

    (postgres.available ? it : it.skip)(
      `on PostgreSQL: exit 1, "PORT: 127.0.0.1:N is already in use"${postgres.available ? '' : ` — pending: ${postgres.reason}`}`,
      async () => {
        const database = await createScratchDatabase();
        try {
          const result = await startGatewayExpectingExit({
            DATABASE_URL: database.url,
            DATA_DIR: await tempDir('startup-port-pg'),
            TRIGGERS_FILE: triggersFile,
            PORT: String(held!.port),
          });
          expectOneLineFailure(result, new RegExp(`^PORT: 127\\.0\\.0\\.1:${held!.port} is already in use \\(EADDRINUSE\\)`));
        } finally {
          await database.drop();
        }
      },
    );
  });

  it('a HOST that is not an address of this machine: exit 1, "HOST: … (EADDRNOTAVAIL)"', async () => {
    // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never assigned to a machine.
    const result = await startGatewayExpectingExit({ DATA_DIR: await tempDir('startup-host'), TRIGGERS_FILE: triggersFile, HOST: '192.0.2.1' });
    expectOneLineFailure(
      result,
      /^HOST: 192\.0\.2\.1 is not an address of this machine \(EADDRNOTAVAIL\): use one of its addresses, 127\.0\.0\.1 \(this machine only\) or 0\.0\.0\.0 \(every interface\)$/,
    );
  });

  it('an unreachable database: exit 1, "DATABASE_URL: cannot connect to 127.0.0.1:N (ECONNREFUSED)", never the password', async () => {
    const port = await closedPort();
    const result = await startGatewayExpectingExit({
      DATABASE_URL: `postgres://agw:do-not-print-me@127.0.0.1:${port}/gateway`,
      DATA_DIR: await tempDir('startup-unreachable'),
      TRIGGERS_FILE: triggersFile,
    });
    expectOneLineFailure(result, new RegExp(`^DATABASE_URL: cannot connect to 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)$`));
    expect(result.stderr + result.stdout).to.not.contain('do-not-print-me');
  });

  it('a bad setting: exit 1 naming the variable and its value', async () => {
    const result = await startGatewayExpectingExit({ DATA_DIR: await tempDir('startup-config'), TRIGGERS_FILE: triggersFile, DATABASE_CREATE: 'perhaps' });
    expect(result.code, result.stderr).to.equal(1);
    expect(result.stderr).to.equal('Invalid configuration:\n  - DATABASE_CREATE: "perhaps" is not true or false\n');
  });

  it('a CHAT_SYSTEM_PROMPT_FILE that does not exist: exit 1 naming the variable and the file', async () => {
    const dir = await tempDir('startup-prompt');
    const prompt = join(dir, 'PROMPT.md');
    const result = await startGatewayExpectingExit({ DATA_DIR: join(dir, 'data'), TRIGGERS_FILE: triggersFile, CHAT_SYSTEM_PROMPT_FILE: prompt });
    expect(result.code, result.stderr).to.equal(1);
    expect(result.stderr).to.equal(`Invalid configuration:\n  - CHAT_SYSTEM_PROMPT_FILE: ${prompt} does not exist\n`);
  });

  it('a DATA_DIR that cannot be a directory: exit 1, "DATA_DIR: cannot use … (ENOTDIR …)"', async () => {
    const file = join(await tempDir('startup-datadir'), 'a-file');
    await writeFile(file, 'not a directory');
    const result = await startGatewayExpectingExit({ DATA_DIR: join(file, 'data'), TRIGGERS_FILE: triggersFile });
    expectOneLineFailure(
      result,
      new RegExp(
        `^DATA_DIR: cannot use ${join(file, 'data').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} for the embedded database \\(ENOTDIR: not a directory\\)$`,
      ),
    );
  });

  it('a DATA_DIR that is a file: exit 1, "DATA_DIR: … is a file, not a directory" (it said EEXIST)', async () => {
    const file = join(await tempDir('startup-datadir-file'), 'a-file');
    await writeFile(file, 'not a directory');
    const result = await startGatewayExpectingExit({ DATA_DIR: file, TRIGGERS_FILE: triggersFile });
    const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expectOneLineFailure(result, new RegExp(`^DATA_DIR: ${escaped} is a file, not a directory: remove it or choose another DATA_DIR$`));
  });

  it('an invalid trigger file: exit 1 naming the file, the trigger and the field, before the database is opened', async () => {
    const dir = await tempDir('startup-bad-triggers');
    const bad = join(dir, 'TRIGGERS.json');
    await writeFile(
      bad,
      JSON.stringify([
        { name: 'fine', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
        { name: 'deploy', watch_path: '/webhook', enabled: true, actions: [{ type: 'webhook', url: 'http://127.0.0.1:9/x', method: 'PUT' }] },
      ]),
    );
    const result = await startGatewayExpectingExit({ DATA_DIR: join(dir, 'data'), TRIGGERS_FILE: bad, TRIGGERS_DIR: dir });
    expect(result.code, result.stderr).to.equal(1);
    expect(result.stderr).to.contain(`${bad}: trigger #1 "deploy": actions[0].method: must be GET or POST`);
    expect(existsSync(join(dir, 'data')), 'the data directory was used').to.equal(false);
  });

  it('an invalid schedule file: exit 1 naming the file, the schedule and the field, before the database is opened', async () => {
    const dir = await tempDir('startup-bad-crons');
    const bad = join(dir, 'CRONS.json');
    await writeFile(
      bad,
      JSON.stringify([
        { name: 'nightly', schedule: '0 3 * * *', timezone: 'Moon/Base', enabled: true, actions: [{ type: 'command', command: 'echo {{now}}' }] },
      ]),
    );
    const result = await startGatewayExpectingExit({ DATA_DIR: join(dir, 'data'), TRIGGERS_FILE: join(dir, 'none.json'), TRIGGERS_DIR: dir, CRONS_FILE: bad });
    expect(result.code, result.stderr).to.equal(1);
    expect(result.stderr).to.contain('Invalid schedule file');
    expect(result.stderr).to.contain(`${bad}: schedule #0 "nightly": timezone: "Moon/Base" is not an IANA time zone`);
    expect(existsSync(join(dir, 'data')), 'the data directory was used').to.equal(false);
  });

  it('a failure once the database is open (the admin socket cannot be served): exit 1, one line naming DATA_DIR, the data directory released', async function () {
    // A new embedded database is created first: tens of seconds on a busy machine.
    this.timeout(120_000);
    const dataDir = await migratedDataDir('startup-admin-socket');
    // A directory where the socket goes: it cannot be removed or listened on.
    await mkdir(join(dataDir, 'admin.sock'));
    const result = await startGatewayExpectingExit({ DATA_DIR: dataDir, TRIGGERS_FILE: triggersFile }, { timeoutMs: 100_000 });
    expectOneLineFailure(result, /^DATA_DIR: cannot serve the admin socket in .* \(listen EADDRINUSE: .*admin\.sock\)$/);
    expect(existsSync(join(dataDir, 'embedded.pid')), 'the embedded database is still locked').to.equal(false);
    expect(result.stdout, 'the task queue ran on after the database closed').to.not.contain('task queue error');
  });

  it('a task queue that cannot start (it begins once requests are served): exit 1 with its error in one line, the data directory released', async function () {
    this.timeout(120_000);
    const dataDir = await migratedDataDir('startup-queue');
    // The trigger runs' queue recorded as an ordered queue: the service's (a standard one) cannot take it over.
    const pglite = await openPglite(join(dataDir, 'pglite'));
    try {
      const updated = await pglite.query(`UPDATE pgboss.queue SET policy = 'key_strict_fifo' WHERE name = 'trigger-run'`);
      expect(updated.affectedRows, 'the template has the queue').to.equal(1);
    } finally {
      await pglite.close();
    }
    const result = await startGatewayExpectingExit({ DATA_DIR: dataDir, TRIGGERS_FILE: triggersFile }, { timeoutMs: 100_000 });
    expectOneLineFailure(result, /^Error: Task queue trigger-run exists with policy key_strict_fifo, not standard/);
    expect(existsSync(join(dataDir, 'embedded.pid')), 'the embedded database is still locked').to.equal(false);
  });

  itAsRoot(
    'files of another account (root) in the embedded database: exit 1 naming how many, whose, the first, and the chown that gives them back',
    async () => {
      // PGlite said no more than "Aborted()" (a CLI run as root had written files there).
      // A migrated DATA_DIR (a copy of the template) given to the account, as one it made itself.
      const dataDir = await migratedDataDir('startup-foreign');
      await promisify(execFile)('chown', ['-R', `${NOBODY}:${NOBODY}`, dataDir]);
      await chown(join(dataDir, 'pglite', 'global', 'pg_control'), 0, 0);
      const result = await startGatewayExpectingExit({ DATA_DIR: dataDir, TRIGGERS_FILE: join(dataDir, 'none.json') }, { asAccount: NOBODY });
      expectOneLineFailure(
        result,
        new RegExp(
          `^DATA_DIR: Cannot open the embedded database: 1 entry in ${dataDir} belongs to another account than this process's \\(uid ${NOBODY}\\): uid 0 \\(root\\) — pglite/global/pg_control\\. .*; give them back to this account: chown -R ${NOBODY} ${dataDir}$`,
        ),
      );
    },
  );

  it('an embedded database held by another gateway: exit 1, "DATA_DIR: The embedded database in … is in use by process N"', async function () {
    this.timeout(120_000);
    const dataDir = await migratedDataDir('startup-busy');
    let first: GatewayProcess | undefined;
    try {
      first = await startGateway({ DATA_DIR: dataDir, TRIGGERS_FILE: triggersFile });
      const result = await startGatewayExpectingExit({ DATA_DIR: dataDir, TRIGGERS_FILE: triggersFile });
      expectOneLineFailure(
        result,
        /^DATA_DIR: The embedded database in .* is in use by process \d+ \(lock file .*\/embedded\.pid\): stop that process first, or give this one another DATA_DIR \(one process at a time opens an embedded database\)$/,
      );
      expect((await send(`${first.url}/api/ping`)).status, 'the first gateway still answers').to.equal(200);
    } finally {
      await first?.stop();
    }
  });
});

describeWithPostgres('e2e: a DATABASE_URL naming a database that does not exist', function () {
  this.timeout(60_000);
  /** A fresh name per test; dropped afterwards whether or not a test created it. */
  const names: string[] = [];
  const missingName = (): string => {
    const name = `agw_missing_${randomBytes(6).toString('hex')}`;
    names.push(name);
    return name;
  };
  let triggersFile: string;
  let gateway: GatewayProcess | undefined;

  before(async () => {
    triggersFile = join(await tempDir('startup-missing'), 'none.json');
  });
  after(async () => {
    await gateway?.stop();
    const client = new pg.Client({ connectionString: SERVER_URL });
    await client.connect();
    try {
      for (const name of names) await client.query(`drop database if exists ${name} with (force)`);
    } finally {
      await client.end();
    }
  });

  it('stops start-up naming DATABASE_URL, the database and DATABASE_CREATE, and creates nothing', async () => {
    const name = missingName();
    const result = await startGatewayExpectingExit({
      DATABASE_URL: urlFor(name),
      DATA_DIR: await tempDir('startup-missing-data'),
      TRIGGERS_FILE: triggersFile,
    });
    expectOneLineFailure(
      result,
      new RegExp(`^DATABASE_URL: database "${name}" does not exist on [^ ]+:\\d+; create it, or set DATABASE_CREATE=true to have it created$`),
    );
    expect(result.stderr + result.stdout).to.not.contain('do-not-print-me');
    expect(await databaseExists(name), 'the database was created anyway').to.equal(false);
  });

  it('with DATABASE_CREATE=true: creates it, migrates it and serves', async () => {
    const name = missingName();
    gateway = await startGateway({
      DATABASE_URL: urlFor(name, ''),
      DATABASE_CREATE: 'true',
      DATA_DIR: await tempDir('startup-create-data'),
      TRIGGERS_FILE: triggersFile,
    });
    expect(await databaseExists(name)).to.equal(true);
    expect(await send(`${gateway.url}/readyz`)).to.deep.equal({ status: 200, body: { status: 'ready', checks: { database: 'ok', queue: 'ok' } } });
    expect(gateway.logs.some((line) => typeof line === 'object' && line.msg === 'database created' && line.database === name)).to.equal(true);
  });
});

describe('e2e: the service takes no arguments', function () {
  this.timeout(30_000);

  it('an argument (a CLI command given to node dist/main.js): exit 2 naming it and pointing to the CLI, no server, the data directory untouched', async () => {
    const dataDir = join(await tempDir('startup-argument'), 'data');
    const result = await runToExit('service', ['keys', 'list'], { DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0' });
    const what = `exit ${result.code}; stderr:\n${result.stderr}\nstdout:\n${result.stdout}`;
    expect(result.code, what).to.equal(2);
    expect(result.stderr, what).to.match(/^Unexpected argument "keys"\. node dist\/main\.js \(npm start\) starts the service and takes no arguments/);
    expect(result.stderr, what).to.include('agent-gateway <command>');
    expect(result.stdout, what).to.equal('');
    expect(existsSync(dataDir), 'the data directory was created').to.equal(false);
  });

  it('--help: exit 0, what the entry does and where the commands are, on stdout', async () => {
    const dataDir = join(await tempDir('startup-help'), 'data');
    const result = await runToExit('service', ['--help'], { DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0' });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.include('takes no arguments').and.to.include('"agent-gateway help" lists them');
    expect(result.stderr).to.equal('');
    expect(existsSync(dataDir), 'the data directory was created').to.equal(false);
  });
});

describe('e2e: an unsupported Node.js is refused before anything else runs', function () {
  this.timeout(30_000);
  /** Makes the child report an older Node.js than it is (loaded with --import before the entry). */
  const pretendNode = (version: string): string[] => [
    '--import',
    `data:text/javascript,Object.defineProperty(process, "versions", { value: { ...process.versions, node: "${version}" } })`,
  ];
  const REFUSAL = /^agent-gateway needs Node\.js 22\.12\.0 or newer, but \S+ is v22\.11\.9; install a newer Node\.js \(see README\.md\)$/;

  it('the service (node dist/main.js) exits 1 with one line on Node 22.11.9, before opening anything', async () => {
    const dataDir = await tempDir('startup-old-node');
    const result = await startGatewayExpectingExit({ DATA_DIR: dataDir }, { nodeArgs: pretendNode('22.11.9') });
    expectOneLineFailure(result, REFUSAL);
    expect(result.stdout).to.equal('');
    expect(existsSync(join(dataDir, 'pglite')), 'the data directory was used').to.equal(false);
  });

  it('the CLI (dist/cli/main.js) exits 1 with the same line', async () => {
    const result = await runToExit('cli', ['keys', 'list'], { DATA_DIR: await tempDir('startup-old-node-cli') }, { nodeArgs: pretendNode('22.11.9') });
    expectOneLineFailure(result, REFUSAL);
  });

  const system = '/usr/bin/node';
  const systemVersion = ((): string => {
    try {
      return execFileSync(system, ['--version'], { encoding: 'utf8' }).trim();
    } catch {
      return 'none';
    }
  })();
  const isNode20 = systemVersion.startsWith('v20.');
  (isNode20 ? it : it.skip)(
    `a real Node 20 (${system}) gets the one line from the service and the CLI${isNode20 ? '' : ` — pending: ${system} is ${systemVersion}, not Node 20`}`,
    async () => {
      const line = new RegExp(
        `^agent-gateway needs Node\\.js 22\\.12\\.0 or newer, but ${system} is ${systemVersion.replace(/\./g, '\\.')}; install a newer Node\\.js \\(see README\\.md\\)$`,
      );
      expectOneLineFailure(await startGatewayExpectingExit({ DATA_DIR: await tempDir('startup-node20') }, { node: system }), line);
      expectOneLineFailure(await runToExit('cli', ['keys', 'list'], { DATA_DIR: await tempDir('startup-node20-cli') }, { node: system }), line);
    },
  );
});

/** The messages of the JSON log lines a process printed, in order. */
const logMessages = (stdout: string): string[] =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);

const WHILE_STARTING = 'received a signal while starting: shutting down once started (send it again to end at once)';

/**
 * What the service says of a signal that stops it, as log lines (JSON on stdout) that name it —
 * `shutting down`, and the line of a signal that came while it started — and nothing of it on
 * stderr: before, it wrote `received SIGTERM, shutting down` there, a line log collectors cannot parse.
 */
const expectSignalLogged = (result: { stdout: string; stderr: string }, signal: string, options: { whileStarting?: boolean } = {}): void => {
  const entries = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; signal?: string });
  const said = (msg: string) => entries.filter((entry) => entry.msg === msg).map((entry) => entry.signal);
  expect(said('shutting down'), result.stdout).to.deep.equal([signal]);
  expect(said(WHILE_STARTING), result.stdout).to.deep.equal(options.whileStarting === true ? [signal] : []);
  expect(result.stderr, 'nothing of the signal on stderr').to.not.match(/SIG|shutting down|shutdown/);
};

describe('e2e: a stop right after the start', function () {
  this.timeout(60_000);

  it('a SIGTERM sent the moment the gateway logs that it listens stops it gracefully: exit 0, "stopped" logged', async () => {
    const dir = await migratedDataDir('startup-stop-at-once');
    // startGateway resolves on the "listening" line; stop() sends SIGTERM at once.
    const gateway = await startGateway({ DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json') });
    const code = await gateway.stop();
    expect(code, JSON.stringify(gateway.logs.slice(-3))).to.equal(0);
    expect(gateway.logs.some((line) => typeof line === 'object' && line.msg === 'stopped')).to.equal(true);
    // Every line it wrote is JSON (a log collector parses each), the signal named in `shutting down`:
    // before, a plain `received SIGTERM, shutting down` went to stderr as well.
    expect(gateway.logs.filter((line) => typeof line === 'string')).to.deep.equal([]);
    expect(
      gateway.logs.filter((line) => typeof line === 'object' && line.msg === 'shutting down').map((line) => (line as { signal?: string }).signal),
    ).to.deep.equal(['SIGTERM']);
    expect(existsSync(join(dir, 'embedded.pid')), 'the embedded database is still locked').to.equal(false);
  });

  it('a SIGTERM while it still starts (requests answered, the task queue not started yet) stops it gracefully once started: exit 0, the database closed', async () => {
    // A database with nothing in it yet (a copy of the empty cluster): pg-boss creates its schema
    // after the first requests are answered, so the start goes on for a while after the first 200.
    // Before, the signal ended the process there and then, and the embedded database went through
    // crash recovery at the next start.
    const dir = dirname(await emptyPgliteDir('startup-stop-while-starting'));
    const port = await closedPort();
    let signalled: Promise<void> | undefined;
    const signalOnFirstAnswer = async (child: ChildProcess): Promise<void> => {
      const ended = () => child.exitCode !== null || child.signalCode !== null;
      const ping = () => send(`http://127.0.0.1:${port}/api/ping`).then((response) => response.status === 200, ended);
      await waitFor(ping, 60_000, 'the first 200 on /api/ping');
      child.kill('SIGTERM');
    };
    const result = await startGatewayExpectingExit(
      { DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json'), PORT: String(port) },
      { onSpawn: (child) => void (signalled = signalOnFirstAnswer(child)), timeoutMs: 100_000 },
    );
    await signalled;
    expect(result.signal, result.stderr).to.equal(null);
    expect(result.code, result.stderr).to.equal(0);
    expectSignalLogged(result, 'SIGTERM', { whileStarting: true });
    const messages = logMessages(result.stdout);
    expect(messages.filter((msg) => msg !== 'request').slice(-3)).to.deep.equal(['agent gateway listening', 'shutting down', 'stopped']);
    expect(existsSync(join(dir, 'embedded.pid')), 'the embedded database is still locked').to.equal(false);
  });

  it("the embedded database's thread dying while it runs stops it with exit code 1 (for its supervisor to start it again), the next start opening the database", async () => {
    // The preloaded module keeps the Workers the service makes and, once the service has
    // started, ends the embedded database's: before, the process went on answering /healthz 200 with no
    // database, for good.
    const dir = await migratedDataDir('startup-engine-dies');
    const endThread = [
      "import { syncBuiltinESMExports } from 'node:module';",
      "import threads from 'node:worker_threads';",
      'const made = []; const Original = threads.Worker;',
      'threads.Worker = class extends Original { constructor(file, options) { super(file, options); made.push([String(file), this]); } };',
      'syncBuiltinESMExports();',
      // once the start is over: the service logs that it listens as its start's last step
      'const write = process.stdout.write.bind(process.stdout); let ended = false;',
      'process.stdout.write = (chunk, ...rest) => { if (!ended && String(chunk).includes(\'"msg":"agent gateway listening"\')) { ended = true; setImmediate(() => { for (const [file, worker] of made) if (file.includes(\'pglite-worker\')) worker.terminate(); }); } return write(chunk, ...rest); };',
    ].join('\n');
    const result = await startGatewayExpectingExit(
      { DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json') },
      { nodeArgs: [`--import=data:text/javascript,${encodeURIComponent(endThread)}`], timeoutMs: 100_000 },
    );
    expect(result.signal, result.stderr).to.equal(null);
    expect(result.code, result.stderr).to.equal(1);
    const messages = logMessages(result.stdout);
    expect(messages, `${result.stdout}\n${result.stderr}`).to.include(
      'the embedded database stopped: every request that needs it fails until the service restarts',
    );
    // It stops as on SIGTERM: requests under way are answered first (the steps that need the
    // database then fail: "shutdown failed", exit code 1 either way).
    expect(messages, result.stderr).to.include('shutting down');
    expectSignalLogged(result, 'SIGTERM');
    // Its lock released although steps of the stop failed: a new container opens it at once.
    expect(existsSync(join(dir, 'embedded.pid')), 'the embedded database is still locked').to.equal(false);
    // The next start opens it.
    const again = await startGateway({ DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json') });
    expect((await send(`${again.url}/readyz`)).status).to.equal(200);
    expect(await again.stop()).to.equal(0);
  });

  it('a SIGTERM the moment the port is bound, while the rest of the service still loads, stops it gracefully once started: exit 0, the database closed', async () => {
    // The port is bound and the embedded database opening before the service's modules are
    // loaded (head-start.ts). The preloaded module signals the process as its first server
    // listens: before, no handler was in place yet and the signal ended the process there.
    const dir = await migratedDataDir('startup-stop-while-loading');
    const signalOnListen = [
      "import net from 'node:net';",
      'const listen = net.Server.prototype.listen; let sent = false;',
      "net.Server.prototype.listen = function (...args) { if (!sent) { sent = true; this.once('listening', () => process.kill(process.pid, 'SIGTERM')); } return listen.apply(this, args); };",
    ].join('\n');
    const result = await startGatewayExpectingExit(
      { DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json') },
      { nodeArgs: [`--import=data:text/javascript,${encodeURIComponent(signalOnListen)}`], timeoutMs: 100_000 },
    );
    expect(result.signal, result.stderr).to.equal(null);
    expect(result.code, result.stderr).to.equal(0);
    expectSignalLogged(result, 'SIGTERM', { whileStarting: true });
    const messages = logMessages(result.stdout);
    expect(messages.slice(-2)).to.deep.equal(['shutting down', 'stopped']);
    expect(existsSync(join(dir, 'embedded.pid')), 'the embedded database is still locked').to.equal(false);
  });
});

describe('e2e: `npm start` stops on a SIGTERM sent to npm', function () {
  this.timeout(120_000);

  // npm runs the start script with `sh -c`: unless the shell is replaced by node (`exec node`),
  // the SIGTERM npm forwards ends the shell, and node, reparented, goes on serving. The npm
  // process is the leader of a process group of its own, so that whatever it started is killed
  // with it after the test, whatever the test saw.
  let started: NpmStartedService | undefined;
  afterEach(() => {
    started?.killGroup();
    started = undefined;
  });

  it('kill -TERM <npm pid>: the service logs "shutting down" and exits, npm exits, the port is free; the listening line names the pid and DATA_DIR', async () => {
    const dir = await tempDir('startup-npm-start');
    started = startUnderNpm('npm', ['run', 'start', '--silent'], dir);
    const { npm, logged, what } = started;
    const npmExited = started.exited();

    await waitFor(async () => logged('agent gateway listening') !== undefined, 90_000, 'the "agent gateway listening" line');
    const listening = logged('agent gateway listening')!;
    expect(listening.dataDir, what()).to.equal(dir);
    expect(listening.pid, what()).to.be.a('number').and.not.equal(npm.pid);
    const port = listening.port as number;

    process.kill(npm.pid!, 'SIGTERM');
    await waitFor(async () => logged('stopped') !== undefined, 30_000, `"shutting down" and "stopped" from the service; its output:\n${what()}`);
    expect(logged('shutting down'), what()).to.not.equal(undefined);
    await npmExited;
    await waitFor(async () => processGone(listening.pid as number), 10_000, `the service (pid ${listening.pid}) to exit`);
    // The port is free again: another program can bind it.
    const server = createServer();
    await new Promise<void>((resolveListen, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolveListen);
    });
    await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  });
});

describe('e2e: test processes never outlive their test', function () {
  this.timeout(60_000);

  it('a gateway that does not start in time is killed before startGateway rejects', async () => {
    const dir = await tempDir('startup-slow');
    let failure: unknown;
    try {
      const started = await startGateway({ DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json') }, { startTimeoutMs: 1 });
      await started.kill();
    } catch (error) {
      failure = error;
    }
    expect(failure).to.be.instanceOf(GatewayStartFailure);
    const { message, pid } = failure as GatewayStartFailure;
    expect(message).to.match(/^gateway did not start in time \(killed after 1 ms\)/);
    expect(pid).to.be.a('number');
    let alive = true;
    try {
      process.kill(pid!, 0);
    } catch (error) {
      alive = (error as NodeJS.ErrnoException).code !== 'ESRCH';
    }
    expect(alive, `process ${pid} is still running`).to.equal(false);
  });
});
