import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { chmod, chown, lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MIGRATIONS } from '../../src/adapters/persistence/migrations/index.js';
import { itAsRoot, NOBODY } from '../support/accounts.js';
import { adminClient } from '../support/admin-http.js';
import { runCli, runCliOnTerminal, runToExit, startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { emptyPgliteDir, migratedDataDir, openPglite } from '../support/data-dirs.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../support/postgres.js';

/*
 * End-to-end: the built `agent-gateway` command (dist/cli/main.js) as a user runs it — on a
 * new and an existing embedded database, through a running server, on PostgreSQL, on a
 * terminal. Every message the CLI owes its user is asserted here word for word: the database
 * line, migrate's account, --help, refusals (exit 2), set-password's prompts.
 */

const ALL_APPLIED = `Applied ${MIGRATIONS.length} migrations: ${MIGRATIONS.map((m) => m.name).join(', ')}`;
const PASSWORD = 'a long admin password';

/** Lines of a terminal's screen or a stream, without the terminal's carriage returns. */
const lines = (text: string): string[] => text.replace(/\r/g, '').split('\n');

/**
 * Where the admin login sends the browser: `/settings/keys` with a session cookie when the
 * password is right, back to `/settings/login` when refused (both are 303, Post/Redirect/Get).
 */
const login = async (gateway: GatewayProcess, password: string): Promise<string> => {
  const response = await adminClient(gateway.url).post('/settings/login', { password });
  expect(response.status).to.equal(303);
  const session = response.headers.getSetCookie().some((cookie) => cookie.startsWith('agw_session=') && !cookie.startsWith('agw_session=;'));
  return `${response.headers.get('location')}${session ? ' (session)' : ''}`;
};

/**
 * An empty or malformed ID for `keys revoke`, `deliveries show` and `deliveries replay`: one
 * message and the usage, exit code 2, whether a server holds the database or not.
 */
const refusesMalformedIds = async (env: Record<string, string>): Promise<void> => {
  const keyId = 'Key id must be a UUID (see keys list)';
  const requestId = 'Request id must be a UUID (see deliveries list)';
  for (const [argv, reason] of [
    [['keys', 'revoke', ''], keyId],
    [['keys', 'revoke', 'nope'], keyId],
    [['keys', 'revoke', '../status'], keyId],
    [['deliveries', 'show', ''], requestId],
    [['deliveries', 'show', '', '--json'], requestId],
    [['deliveries', 'show', '00000000-0000-4000-8000-00000000000'], requestId],
    [['deliveries', 'replay', ''], requestId],
    [['deliveries', 'replay', '..'], requestId],
  ] as const) {
    const refused = await runCli([...argv], env);
    const what = JSON.stringify(argv);
    expect(refused.code, what).to.equal(2);
    expect(refused.stdout, what).to.equal('');
    expect(lines(refused.stderr).slice(0, 3), what).to.deep.equal([
      reason,
      '',
      `Usage: agent-gateway ${argv.slice(0, 2).join(' ')} ID${argv[1] === 'show' ? ' [--json]' : ''}`,
    ]);
  }
};

describe('e2e: the agent-gateway command', function () {
  this.timeout(180_000);

  describe('command line (nothing touched)', () => {
    let dataDir: string;
    let env: Record<string, string>;

    beforeEach(async () => {
      // A DATA_DIR that must not come into existence: --help and refusals touch no database.
      dataDir = join(await tempDir('cli-line'), 'data');
      env = { DATA_DIR: dataDir };
    });
    afterEach(() => {
      expect(existsSync(dataDir), 'DATA_DIR created').to.equal(false);
    });

    it('prints the usage of each command and group for --help, on stdout, exit code 0', async () => {
      const all = [
        [],
        ['serve'],
        ['migrate'],
        ['keys'],
        ['keys', 'create'],
        ['keys', 'list'],
        ['keys', 'revoke'],
        ['triggers'],
        ['triggers', 'check'],
        ['admin'],
        ['admin', 'set-password'],
      ];
      for (const words of all) {
        const result = await runCli([...words, '--help'], env);
        const groups = ['keys', 'triggers', 'admin'];
        const head = words.length === 0 ? '<command>' : words.length === 1 && groups.includes(words[0]) ? `${words[0]} <command>` : words.join(' ');
        expect(result.code, words.join(' ')).to.equal(0);
        expect(result.stdout, words.join(' ')).to.match(new RegExp(`^Usage: agent-gateway ${head}`));
        expect(result.stderr, words.join(' ')).to.equal('');
      }
      const created = await runCli(['keys', 'create', '--help'], env);
      expect(created.stdout).to.include('--name NAME').and.include('--json').and.include('-h, --help');
    });

    it('refuses an unknown option with exit code 2 and the usage of that command, doing nothing', async () => {
      const result = await runCli(['keys', 'create', '--name', 'ci', '--bogus'], env);
      expect(result.code).to.equal(2);
      expect(result.stdout).to.equal('');
      expect(lines(result.stderr).slice(0, 3)).to.deep.equal(['unknown option --bogus', '', 'Usage: agent-gateway keys create --name NAME [--json]']);
      for (const argv of [
        ['migrate', '--force'],
        ['admin', 'set-password', '--password', 'x'],
        ['keys', 'list', '--json=yes'],
      ]) {
        const refused = await runCli(argv, env);
        expect(refused.code, argv.join(' ')).to.equal(2);
        expect(refused.stderr, argv.join(' ')).to.include(
          `Usage: agent-gateway ${argv
            .slice(0, 2)
            .filter((w) => !w.startsWith('-'))
            .join(' ')}`,
        );
      }
    });

    it('refuses a key name, a password or a --limit that could never be used before any database is opened or created', async () => {
      // A --name the command refuses is a command line that cannot be used: exit code 2 and the usage, as without --name.
      for (const [name, reason] of [
        ['  ', 'Missing key name'],
        ['x'.repeat(101), 'Key name is longer than 100 characters'],
      ] as const) {
        const refused = await runCli(['keys', 'create', '--name', name], env);
        expect(refused.code, refused.stderr).to.equal(2);
        expect(lines(refused.stderr).slice(0, 3)).to.deep.equal([reason, '', 'Usage: agent-gateway keys create --name NAME [--json]']);
        expect(refused.stderr).not.to.contain('creating it');
      }
      const short = await runCli(['admin', 'set-password'], env, { input: 'short\n' });
      expect(short.code).to.equal(1);
      expect(lines(short.stderr).at(-2)).to.equal('The password must have at least 12 characters');
      expect(short.stderr).not.to.contain('creating it');
      // A --limit the command cannot take is a command line that cannot be used, as docs/cli.md says: exit code 2 and the usage.
      for (const argv of [
        ['deliveries', 'list', '--limit', '0'],
        ['deliveries', 'list', '--limit', '501'],
        ['deliveries', 'list', '--limit', '-1'],
        ['deliveries', 'list', '--limit', '-5', '--json'],
      ]) {
        const refused = await runCli(argv, env);
        expect(refused.code, argv.join(' ')).to.equal(2);
        expect(lines(refused.stderr).slice(0, 3), argv.join(' ')).to.deep.equal(['limit must be a whole number from 1 to 500', '', lines(refused.stderr)[2]]);
        expect(lines(refused.stderr)[2], argv.join(' ')).to.match(/^Usage: agent-gateway deliveries list/);
        expect(refused.stderr, argv.join(' ')).not.to.contain('creating it');
      }
    });

    it('refuses an ID that cannot be an id with exit code 2 and the usage, before any database is opened', async () => {
      await refusesMalformedIds(env);
    });

    it('refuses unknown commands and sub-commands, and a missing command, with exit code 2 and the usage', async () => {
      const unknown = await runCli(['keyz', 'list'], env);
      expect(unknown.code).to.equal(2);
      expect(lines(unknown.stderr).slice(0, 3)).to.deep.equal(['unknown command keyz; did you mean keys?', '', 'Usage: agent-gateway <command> [options]']);
      const sub = await runCli(['keys', 'delete', 'x'], env);
      expect(sub.code).to.equal(2);
      expect(lines(sub.stderr).slice(0, 3)).to.deep.equal(['unknown keys command delete', '', 'Usage: agent-gateway keys <command> [options]']);
      const none = await runCli([], env);
      expect(none.code).to.equal(2);
      expect(none.stderr).to.match(/^no command given\n\nUsage: agent-gateway <command>/);
    });
  });

  describe('embedded database, no server running', () => {
    it('migrate applies every migration to a new database and says which, then says it is up to date', async () => {
      const dataDir = join(await tempDir('cli-migrate'), 'data');
      const first = await runCli(['migrate'], { DATA_DIR: dataDir });
      expect(first.code, first.stderr).to.equal(0);
      expect(first.stdout).to.equal(`${ALL_APPLIED}\n`);
      expect(lines(first.stderr).slice(0, 2)).to.deep.equal([
        `using the embedded database in ${dataDir} (not in use by a server)`,
        `no database in ${dataDir} yet: creating it (set DATABASE_URL to use PostgreSQL instead)`,
      ]);
      const again = await runCli(['migrate'], { DATA_DIR: dataDir });
      expect(again.code, again.stderr).to.equal(0);
      expect(again.stdout).to.equal('Database is up to date\n');
      expect(again.stderr).to.equal(`using the embedded database in ${dataDir} (not in use by a server)\n`);
    });

    itAsRoot('run as root (sudo) on a DATA_DIR another account owns, works as that account: every file it writes there stays that account’s', async () => {
      // As root, PGlite's files were written as root, and the service, started again as its own
      // account, could not open its database (PGlite's bare "Aborted()").
      const parent = await tempDir('cli-owner');
      const dataDir = join(parent, 'data');
      await mkdir(dataDir, { mode: 0o700 });
      await chown(parent, NOBODY, NOBODY);
      await chown(dataDir, NOBODY, NOBODY);
      const created = await runCli(['keys', 'create', '--name', 'ops'], { DATA_DIR: dataDir });
      expect(created.code, created.stderr).to.equal(0);
      expect(lines(created.stderr).slice(0, 3)).to.deep.equal([
        `using the embedded database in ${dataDir} (not in use by a server)`,
        `running as uid ${NOBODY}, the owner of ${dataDir}, so that the files this command writes there stay the service's`,
        `no database in ${dataDir} yet: creating it (set DATABASE_URL to use PostgreSQL instead)`,
      ]);
      const written = await readdir(dataDir, { recursive: true });
      expect(written).to.include(join('pglite', 'PG_VERSION'));
      const owners = await Promise.all(written.map(async (name) => `${name} ${(await lstat(join(dataDir, name))).uid}`));
      expect(owners.filter((owner) => !owner.endsWith(` ${NOBODY}`))).to.deep.equal([]);
      const listed = await runCli(['keys', 'list', '--json'], { DATA_DIR: dataDir });
      expect((JSON.parse(listed.stdout) as Array<{ name: string }>).map((key) => key.name)).to.deep.equal(['ops']);
    });

    itAsRoot(
      'run as another account than the DATA_DIR’s, says whose it is and that a server may run as it, never "not in use", "creating it" nor a reload done',
      async () => {
        // Service as nobody on an owner-only DATA_DIR; the CLI as another account could not read
        // the lock file, said "(not in use by a server)", "creating it", suggested a chown, and
        // reload said "no server is running …; the files are valid" with exit code 0.
        const parent = await tempDir('cli-other-account');
        await chmod(parent, 0o755);
        const dataDir = join(parent, 'data');
        await mkdir(join(dataDir, 'pglite'), { recursive: true, mode: 0o700 });
        await writeFile(join(dataDir, 'pglite', 'PG_VERSION'), '17\n');
        await writeFile(join(dataDir, 'embedded.pid'), `${process.pid}\n`, { mode: 0o600 }); // a live process holds it
        for (const entry of ['', 'pglite', join('pglite', 'PG_VERSION'), 'embedded.pid']) await chown(join(dataDir, entry), NOBODY, NOBODY);
        await chmod(dataDir, 0o700);
        const OTHER = 4242;
        const advice = (command: string) =>
          `DATA_DIR: ${dataDir} belongs to uid ${NOBODY} (nobody), and this account (uid ${OTHER}) cannot read its lock file ${join(dataDir, 'embedded.pid')} (EACCES): ` +
          'a server may be running as that account, holding the embedded database, which this command can neither tell nor reach. ' +
          `Run the command as that account: sudo -u '#${NOBODY}' env DATA_DIR=${dataDir} agent-gateway ${command}\n`;
        for (const argv of [['keys', 'list'], ['reload'], ['keys', 'create', '--name', 'ops one']]) {
          const refused = await runToExit('cli', argv, { DATA_DIR: dataDir, TRIGGERS_FILE: join(parent, 'none.json') }, { asAccount: OTHER });
          expect(refused.code, refused.stderr).to.equal(1);
          expect(refused.stdout).to.equal('');
          expect(refused.stderr).to.equal(advice(argv.map((word) => (word.includes(' ') ? `'${word}'` : word)).join(' ')));
        }

        // The lock file readable and absent (no server), but the database another account's: not "creating it" either.
        await chmod(dataDir, 0o755);
        await chmod(join(dataDir, 'embedded.pid'), 0o644);
        await writeFile(join(dataDir, 'embedded.pid'), '2147483646\n'); // a dead process's
        const dbUnreadable = await runToExit('cli', ['migrate'], { DATA_DIR: dataDir }, { asAccount: OTHER });
        expect(dbUnreadable.code, dbUnreadable.stderr).to.equal(1);
        expect(dbUnreadable.stderr).to.equal(
          `DATA_DIR: ${dataDir} belongs to uid ${NOBODY} (nobody), and this account (uid ${OTHER}) cannot read its database ${join(dataDir, 'pglite')} (EACCES): ` +
            'a server may be running as that account, holding the embedded database, which this command can neither tell nor reach. ' +
            `Run the command as that account: sudo -u '#${NOBODY}' env DATA_DIR=${dataDir} agent-gateway migrate\n`,
        );
      },
    );

    it('names the database on stderr and keeps stdout to the JSON asked for', async () => {
      const dataDir = await migratedDataDir('cli-json');
      const created = await runCli(['keys', 'create', '--name', 'ci', '--json'], { DATA_DIR: dataDir });
      expect(created.code, created.stderr).to.equal(0);
      expect(JSON.parse(created.stdout)).to.include({ name: 'ci' });
      expect(lines(created.stderr)[0]).to.equal(`using the embedded database in ${dataDir} (not in use by a server)`);
      const listed = await runCli(['keys', 'list', '--json'], { DATA_DIR: dataDir });
      expect((JSON.parse(listed.stdout) as Array<{ name: string }>).map((key) => key.name)).to.deep.equal(['ci']);
      expect(listed.stderr).to.equal(`using the embedded database in ${dataDir} (not in use by a server)\n`);
    });

    it('refuses a key name with bidi overrides or C1 controls, and shows such a name stored before the rule escaped on the terminal, as stored in JSON', async () => {
      const dataDir = await migratedDataDir('cli-name');
      const name = 'ci\u202egnp.exe\u009b2J';
      const refused = await runCli(['keys', 'create', '--name', name], { DATA_DIR: dataDir });
      // The command line's value: exit code 2 with the usage.
      expect(refused.code).to.equal(2);
      expect(refused.stderr).to.contain('Key name holds U+202E').and.contain('Usage: agent-gateway keys create');
      const created = await runCli(['keys', 'create', '--name', 'ci'], { DATA_DIR: dataDir });
      expect(created.code, created.stderr).to.equal(0);
      // A name stored before names were checked (9fa743d): written as such a version stored it.
      const db = await openPglite(join(dataDir, 'pglite'));
      try {
        await db.query('update api_keys set name = $1', [name]);
      } finally {
        await db.close();
      }
      const listed = await runCli(['keys', 'list'], { DATA_DIR: dataDir });
      expect(lines(listed.stdout)[1].split('\t')[1]).to.equal('ci\\u202egnp.exe\\x9b2J');
      const json = await runCli(['keys', 'list', '--json'], { DATA_DIR: dataDir });
      expect((JSON.parse(json.stdout) as Array<{ name: string }>)[0].name).to.equal(name);
    });

    it('set-password on a terminal asks twice without echo before opening the database, refuses two different answers', async () => {
      const dataDir = join(await tempDir('cli-tty'), 'data');
      const env = { DATA_DIR: dataDir };
      const differ = await runCliOnTerminal(['admin', 'set-password'], env, [
        { after: 'New admin password: ', type: 'first answer typed\r' },
        { after: 'Repeat the password: ', type: 'second answer typed\r' },
      ]);
      expect(differ.code, differ.screen).to.equal(1);
      expect(lines(differ.screen)).to.deep.equal([
        `using the embedded database in ${dataDir} (not in use by a server)`,
        'New admin password: ',
        'Repeat the password: ',
        'The two passwords differ; the password was not changed',
        '',
      ]);
      const same = await runCliOnTerminal(['admin', 'set-password'], env, [
        { after: 'New admin password: ', type: `${PASSWORD}\r` },
        { after: 'Repeat the password: ', type: `${PASSWORD}\r` },
      ]);
      expect(same.code, same.screen).to.equal(0);
      expect(same.screen).to.not.include(PASSWORD);
      // Asked before the database is opened (the lines about creating it come after the prompts).
      const shown = lines(same.screen);
      expect(shown.indexOf('Repeat the password: ')).to.be.lessThan(shown.findIndex((line) => line.startsWith('no database in')));
      expect(shown.at(-2)).to.equal('Admin password set; every admin session has ended. Open /settings to log in.');

      const gateway = await startGateway({ ...env, TRIGGERS_FILE: join(dataDir, '..', 'none.json') });
      try {
        expect(await login(gateway, PASSWORD)).to.equal('/settings/keys (session)');
        expect(await login(gateway, 'first answer typed')).to.equal('/settings/login');
      } finally {
        await gateway.stop();
      }
    });
  });

  describe('embedded database, server running', () => {
    let gateway: GatewayProcess | undefined;
    let dataDir: string;
    let pid: number;

    before(async () => {
      // An embedded database created but never migrated (the cluster made once per run, copied):
      // the server applies every migration at its start, as on a new DATA_DIR, without creating
      // the cluster again (~3 s of CPU; creating it is what 'migrate applies every migration to a
      // new database' above is about).
      dataDir = dirname(await emptyPgliteDir('cli-server'));
      gateway = await startGateway({ DATA_DIR: dataDir, TRIGGERS_FILE: join(dataDir, 'none.json') });
      pid = Number((await readFile(join(dataDir, 'embedded.pid'), 'utf8')).split('\n')[0]); // line 1: the holder's pid
    });
    after(() => gateway?.stop());

    const through = (): string => `using the embedded database in ${dataDir} (through the running server, pid ${pid})`;

    it('works through the server, saying so: keys create, list and revoke', async () => {
      const created = await runCli(['keys', 'create', '--name', 'through', '--json'], { DATA_DIR: dataDir });
      expect(created.code, created.stderr).to.equal(0);
      expect(created.stderr).to.equal(`${through()}\n`);
      const { id, key } = JSON.parse(created.stdout) as { id: string; key: string };
      expect((await fetch(`${gateway!.url}/api/jobs/status`, { headers: { 'x-api-key': key } })).status).to.equal(200);
      const listed = await runCli(['keys', 'list'], { DATA_DIR: dataDir });
      expect(listed.stdout).to.include(id);
      expect(listed.stderr).to.equal(`${through()}\n`);
      // Pasted with a space after it, as a shell quotes a copied id: the id.
      const revoked = await runCli(['keys', 'revoke', ` ${id} `], { DATA_DIR: dataDir });
      expect(revoked.code, revoked.stderr).to.equal(0);
      expect(revoked.stdout).to.equal(`Revoked key ${id}\n`);
      expect((await fetch(`${gateway!.url}/api/jobs/status`, { headers: { 'x-api-key': key } })).status).to.equal(401);
    });

    it('migrate reports what the running server applied at its start', async () => {
      const result = await runCli(['migrate'], { DATA_DIR: dataDir });
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stdout).to.equal(`${ALL_APPLIED} (by the running server, pid ${pid}, at its start)\n`);
      expect(result.stderr).to.equal(`${through()}\n`);
    });

    it('set-password reads stdin when it is no terminal, and the server takes the new password at once', async () => {
      const result = await runCli(['admin', 'set-password'], { DATA_DIR: dataDir }, { input: `${PASSWORD}\n` });
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr).to.equal(`${through()}\n`);
      expect(result.stdout).to.equal('Admin password set; every admin session has ended. Open /settings to log in.\n');
      expect(await login(gateway!, PASSWORD)).to.equal('/settings/keys (session)');
    });

    it('refuses an ID that cannot be an id as it does without a server (exit code 2), asking the server nothing', async () => {
      await refusesMalformedIds({ DATA_DIR: dataDir });
    });

    it('fails with one line when the key id is unknown', async () => {
      const result = await runCli(['keys', 'revoke', '00000000-0000-4000-8000-000000000000'], { DATA_DIR: dataDir });
      expect(result.code).to.equal(1);
      expect(lines(result.stderr)).to.have.length(3); // the database line, the error, the final newline
      expect(lines(result.stderr)[1]).to.match(/^No /);
    });
  });

  describeWithPostgres('PostgreSQL', () => {
    let scratch: ScratchDatabase | undefined;
    let env: Record<string, string>;
    let location: string;

    beforeEach(async () => {
      scratch = await createScratchDatabase();
      // A password in the URL (ignored by the test server's trust authentication) must never be shown.
      const url = new URL(scratch.url);
      url.password = 'hunter2-secret';
      env = { DATABASE_URL: url.toString(), DATA_DIR: join(await tempDir('cli-pg'), 'unused') };
      location = `${url.hostname}:${url.port || '5432'}${url.pathname}`;
    });
    afterEach(() => scratch?.drop());

    it('names the server and database, never the password, and migrates a new database then says it is up to date', async () => {
      const first = await runCli(['migrate'], env);
      expect(first.code, first.stderr).to.equal(0);
      expect(first.stderr).to.equal(`using PostgreSQL at ${location}\n`);
      expect(first.stdout).to.equal(`${ALL_APPLIED}\n`);
      const again = await runCli(['migrate'], env);
      expect(again.stdout).to.equal('Database is up to date\n');
      const created = await runCli(['keys', 'create', '--name', 'pg', '--json'], env);
      expect(created.code, created.stderr).to.equal(0);
      expect(JSON.parse(created.stdout)).to.include({ name: 'pg' });
      for (const output of [first, again, created]) expect(output.stdout + output.stderr).to.not.include('hunter2');
      expect(existsSync(env.DATA_DIR), 'the embedded database was not touched').to.equal(false);
    });
  });
});
