import { expect } from 'chai';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { basename, join } from 'node:path';
import { BwrapSandboxedShell, type BwrapSandboxPaths, checkBwrap, checkBwrapNetwork, findBwrap } from '../../../src/adapters/shell/bwrap-sandboxed-shell.js';
import { postgresSocketDirs } from '../../../src/adapters/persistence/postgres-socket-dirs.js';
import { ChildProcessShellExecutor } from '../../../src/adapters/shell/child-process-shell-executor.js';
import { SpawnerShellExecutor } from '../../../src/adapters/shell/spawner/spawner-shell-executor.js';
import { loadConfig } from '../../../src/container/config.js';
import { Gateway } from '../../../src/container/gateway.js';
import { StartupError } from '../../../src/container/startup-error.js';
import type { ShellExecutor, ShellOptions } from '../../../src/ports/shell-executor.js';
import { Container } from 'inversify';
import { AI_PROVIDERS } from '../../../src/adapters/ai/ai-providers.js';
import { EnvironmentSecretStore } from '../../../src/adapters/secrets/environment-secret-store.js';
import { BWRAP_SCRIPT } from '../../../src/adapters/shell/bwrap-sandboxed-shell.js';
import { bindJobs } from '../../../src/container/bindings/job-bindings.js';
import { TOKENS } from '../../../src/container/tokens.js';
import type { Job, JobChange } from '../../../src/domain/jobs/job.js';
import { describeShellExecutorContract } from '../../contract/shell-executor.contract.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { ScriptedAiClient } from '../../fakes/scripted-ai-client.js';
import { tempDir } from '../../support/gateway-process.js';

/*
 * JOB_SANDBOX=bwrap: the agents' commands in bubblewrap, with the real bwrap. The service's
 * directories are made under /var/tmp, not /tmp: the sandbox's /tmp is a fresh tmpfs of its own,
 * which would hide them whatever the sandbox did with DATA_DIR, HOME and the working directory.
 */

const BWRAP = findBwrap(process.env.PATH);
const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

/** A service's directories as the gateway has them: DATA_DIR (admin socket, database, jobs repository, worktrees), HOME, its working directory. */
const serviceLayout = (root: string): BwrapSandboxPaths & { readonly worktree: string } => {
  const dataDir = join(root, 'data');
  const layout = {
    bwrap: BWRAP ?? 'bwrap',
    dataDir,
    serviceHome: join(root, 'home'),
    serviceCwd: join(root, 'service'),
    runtimeDir: join(root, 'run-user'),
    triggersDir: join(root, 'triggers'),
    // As the binding has them without DATABASE_URL (/run/postgresql, /var/run/postgresql).
    databaseSocketDirs: postgresSocketDirs(undefined, undefined),
    // Outside every hidden directory, as they may be (TRIGGERS_FILE=/etc/agw/triggers.json).
    hiddenFiles: [join(root, 'config', 'triggers.json'), join(root, 'config', 'crons.json'), join(root, 'config', '.env')],
    repoDir: join(dataDir, 'jobs-repo'),
    worktree: join(dataDir, 'worktrees', 'job-1'),
  };
  for (const dir of [
    layout.serviceHome,
    layout.serviceCwd,
    layout.runtimeDir,
    layout.triggersDir,
    join(root, 'config'),
    layout.repoDir,
    layout.worktree,
    join(dataDir, 'pglite'),
  ])
    mkdirSync(dir, { recursive: true });
  return layout;
};

/** A loopback TCP server of the test process that greets whoever connects. */
const greetingServer = async (): Promise<{ server: Server; port: number }> => {
  const server = createServer((connection) => connection.end('hello from the host\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port };
};

/**
 * A command that connects to $TARGET (`host:port`, or a Unix socket's path) with this test's own
 * node (a real connect, whatever tools the machine has), printing what it read or why it could not.
 */
/**
 * A Node.js the sandbox can run for the tests' small clients: the test's own, unless it lives
 * under /tmp — a clean clone's CI installs Node 24 in its `.ci/.node`, and the clone is under
 * /tmp, which the sandbox replaces with an empty tmpfs — then a copy under /var/tmp (removed
 * after the tests).
 */
let nodeCopies: string | undefined;
const sandboxNode = (): string => {
  if (!process.execPath.startsWith('/tmp/')) return process.execPath;
  nodeCopies ??= mkdtempSync('/var/tmp/agw-sandbox-node-');
  const copy = join(nodeCopies, 'node');
  if (!existsSync(copy)) {
    copyFileSync(process.execPath, copy);
    chmodSync(copy, 0o755);
  }
  return copy;
};
after(() => {
  if (nodeCopies !== undefined) rmSync(nodeCopies, { recursive: true, force: true });
});

const CONNECT = `"$NODE" -e '
  const [host, port] = process.env.TARGET.split(":");
  const socket = require("net").connect(port === undefined ? { path: host } : { host, port: Number(port) });
  socket.setTimeout(5000, () => { console.log("no answer"); process.exit(0); });
  socket.on("connect", () => { console.log("connected"); socket.end(); });
  socket.on("data", (data) => process.stdout.write(String(data)));
  socket.on("error", (error) => console.log("refused " + error.code));
  socket.on("close", () => socket.destroy());
'`;

/** The processes whose environment holds `mark` (a variable given to one command only), wherever their PID namespace. */
const runningWith = async (mark: string): Promise<number[]> => {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, 'latin1').catch(() => '');
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const zombie = stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z';
    if (environ.split('\0').includes(mark) && !zombie) found.push(Number(entry));
  }
  return found;
};

if (BWRAP === undefined) {
  describe.skip('JOB_SANDBOX=bwrap: the agents’ commands in bubblewrap — pending: bwrap is not installed', () => undefined);
} else {
  describe('JOB_SANDBOX=bwrap: the agents’ commands in bubblewrap', () => {
    const contractRoot = mkdtempSync('/var/tmp/agw-sandbox-contract-');
    after(() => rmSync(contractRoot, { recursive: true, force: true }));
    const contractPaths = serviceLayout(contractRoot);
    let spawner: SpawnerShellExecutor;
    describeShellExecutorContract(
      'bubblewrap around a spawner process',
      () => new BwrapSandboxedShell((spawner = new SpawnerShellExecutor()), contractPaths),
      () => spawner.close(),
      { ownPidNamespace: true },
    );

    describe('what a hostile agent can reach', () => {
      let root: string;
      let layout: ReturnType<typeof serviceLayout>;
      let socket: Server;
      let inner: ShellExecutor;
      let shell: ShellExecutor;
      let options: ShellOptions;
      const run = async (command: string, env: Record<string, string> = {}) => shell.run(command, { ...options, env: { ...options.env, ...env } });

      beforeEach(async () => {
        root = mkdtempSync('/var/tmp/agw-sandbox-');
        layout = serviceLayout(root);
        // The embedded engine's admin socket, listening, and its database files.
        socket = createServer((connection) => connection.end('admin\n'));
        await new Promise<void>((resolve) => socket.listen(join(layout.dataDir, 'admin.sock'), resolve));
        await writeFile(join(layout.dataDir, 'pglite', 'PG_VERSION'), '17\n');
        await writeFile(join(layout.serviceHome!, '.git-credentials'), 'https://user:service-token@example.com\n');
        await writeFile(join(layout.serviceCwd, '.env'), 'ADMIN_PASSWORD=service-secret\n');
        await writeFile(join(layout.repoDir, 'HEAD'), 'ref: refs/heads/main\n');
        inner = new ChildProcessShellExecutor();
        shell = new BwrapSandboxedShell(inner, layout);
        options = {
          cwd: layout.worktree,
          timeoutMs: 20_000,
          env: { ...ENV, DATA: layout.dataDir, SERVICE_HOME: layout.serviceHome!, SERVICE_CWD: layout.serviceCwd, REPO: layout.repoDir },
        };
      });
      afterEach(async () => {
        await new Promise((resolve) => socket.close(resolve));
        rmSync(root, { recursive: true, force: true });
      });

      it("cannot see DATA_DIR's admin socket or the embedded database's files", async () => {
        const result = await run('ls -A "$DATA"; test -e "$DATA/admin.sock" && echo socket; test -e "$DATA/pglite/PG_VERSION" && echo database; echo end');
        expect(result.exitCode).to.equal(0);
        expect(result.output).not.to.contain('admin.sock').and.not.to.contain('socket').and.not.to.contain('database');
        expect(result.output).to.contain('end');
      });

      it("cannot read the service HOME's credentials or the .env in its working directory", async () => {
        const result = await run('cat "$SERVICE_HOME/.git-credentials" "$SERVICE_CWD/.env" 2>/dev/null; ls -A "$SERVICE_HOME" "$SERVICE_CWD"');
        expect(result.output).not.to.contain('service-token').and.not.to.contain('service-secret').and.not.to.contain('.git-credentials');
      });

      it('cannot reach the session bus in XDG_RUNTIME_DIR or read TRIGGERS_DIR, TRIGGERS_FILE, CRONS_FILE or .env', async () => {
        const bus = createServer((connection) => connection.end('bus\n'));
        await new Promise<void>((resolve) => bus.listen(join(layout.runtimeDir!, 'bus'), resolve));
        try {
          await writeFile(join(layout.triggersDir, 'deploy.sh'), 'echo trigger-script\n');
          for (const [file, text] of layout.hiddenFiles.map((file, i) => [file, `hidden-file-${i}`] as const)) await writeFile(file, text);
          const config = join(root, 'config');
          const result = await run(
            'ls -A "$RUNTIME" "$TRIGGERS"; test -e "$RUNTIME/bus" && echo bus-visible; cat "$CONFIG"/triggers.json "$CONFIG"/crons.json "$CONFIG"/.env; echo end',
            { RUNTIME: layout.runtimeDir!, TRIGGERS: layout.triggersDir, CONFIG: config },
          );
          expect(result.output).to.contain('end');
          expect(result.output).not.to.contain('bus').and.not.to.contain('deploy.sh').and.not.to.contain('hidden-file');
          // Outside the sandbox they are all there.
          expect(await readdir(config)).to.have.members(['triggers.json', 'crons.json', '.env']);
        } finally {
          await new Promise((resolve) => bus.close(resolve));
        }
      });

      it('hides TRIGGERS_FILE even where the writable worktree would show it', async () => {
        const inWorktree = join(layout.worktree, 'triggers.json');
        await writeFile(inWorktree, 'hidden-in-worktree');
        shell = new BwrapSandboxedShell(inner, { ...layout, hiddenFiles: [inWorktree] });
        const result = await run('cat triggers.json; echo end');
        expect(result.output).to.equal('end\n');
      });

      it('runs commands when DATA_DIR is a symbolic link (the worktree is named through it)', async () => {
        const linked = join(root, 'data-link');
        symlinkSync(layout.dataDir, linked);
        shell = new BwrapSandboxedShell(inner, { ...layout, dataDir: linked, repoDir: join(linked, 'jobs-repo') });
        const result = await shell.run('echo work > made.txt && ls -A "$DATA"', {
          ...options,
          cwd: join(linked, 'worktrees', 'job-1'),
          env: { ...options.env, DATA: linked },
        });
        expect(result, result.output).to.include({ exitCode: 0 });
        // DATA_DIR still hidden: only the mount points of the repository and the worktree.
        expect(result.output).to.equal('jobs-repo\nworktrees\n');
        expect(await readFile(join(layout.worktree, 'made.txt'), 'utf8')).to.equal('work\n');
      });

      it("cannot read the gateway's environment in /proc: the gateway is not in its PID namespace", async () => {
        // Readable by a process of the service's user outside the sandbox.
        expect(await readFile(`/proc/${process.pid}/environ`, 'latin1')).to.contain('PATH=');
        const result = await run(`cat /proc/${process.pid}/environ >/dev/null 2>&1 && echo readable || echo unreadable; ls /proc | grep -c '^[0-9]'`);
        const [readable, count] = result.output.trim().split('\n');
        expect(readable).to.equal('unreadable');
        // Its shell, ls and grep (and bwrap's own init): a handful, not the machine's processes.
        expect(Number(count)).to.be.below(10);
      });

      it('can write its worktree and read the jobs repository (inside DATA_DIR), but write nothing there', async () => {
        const result = await run('echo work > made.txt && cat "$REPO/HEAD" && { { echo git > "$REPO/made.txt"; } 2>/dev/null || echo repository-read-only; }');
        expect(result).to.include({ exitCode: 0 });
        expect(result.output).to.equal('ref: refs/heads/main\nrepository-read-only\n');
        expect(await readFile(join(layout.worktree, 'made.txt'), 'utf8')).to.equal('work\n');
        expect(await readFile(join(layout.repoDir, 'made.txt'), 'utf8').catch(() => 'absent')).to.equal('absent');
      });

      it('reads its worktree with git (status, diff, log), but can change nothing of the repository through which the runner would act: no commit, no link, no alternates, no ref', async () => {
        const git = {
          ...ENV,
          GIT_AUTHOR_NAME: 'agent',
          GIT_AUTHOR_EMAIL: 'agent@example.com',
          GIT_COMMITTER_NAME: 'agent',
          GIT_COMMITTER_EMAIL: 'agent@example.com',
        };
        rmSync(layout.repoDir, { recursive: true, force: true });
        rmSync(layout.worktree, { recursive: true, force: true });
        const setup = await inner.run(
          'git init -q -b main "$REPO" && git -C "$REPO" commit -q --allow-empty -m first && git -C "$REPO" worktree add -q -b job "$WT" main',
          {
            ...options,
            cwd: root,
            env: { ...git, REPO: layout.repoDir, WT: layout.worktree },
          },
        );
        expect(setup, setup.output).to.include({ exitCode: 0 });
        const read = await run('echo change > change.txt && git status --porcelain && git log --format=%s', git);
        expect(read, read.output).to.include({ exitCode: 0 });
        expect(read.output).to.equal('?? change.txt\nfirst\n');
        const common = join(layout.repoDir, '.git');
        const writes = [
          'git add change.txt && git commit -q -m change',
          `rm -rf "${common}/worktrees" && ln -s "$HOME" "${common}/worktrees"`,
          `echo /elsewhere/.git/objects > "${common}/objects/info/alternates"`,
          `ln -sf /elsewhere/.git/refs/heads/main "${common}/refs/heads/main"`,
          `ln -sf "$HOME/.bashrc" "${common}/worktrees/${basename(layout.worktree)}/logs/HEAD"`,
        ];
        for (const write of writes) {
          const result = await run(`{ ${write}; } 2>/dev/null && echo written || echo refused`, git);
          expect(result.output, write).to.equal('refused\n');
        }
        const log = await inner.run(
          'git -C "$REPO" log --all --format=%s && ls "$REPO/.git/worktrees" && test ! -L "$REPO/.git/worktrees" && echo not-a-link',
          {
            ...options,
            cwd: root,
            env: { ...git, REPO: layout.repoDir },
          },
        );
        expect(log.output).to.equal(`first\n${basename(layout.worktree)}\nnot-a-link\n`);
      });

      it('leaves no process behind: one started with setsid is gone when the command ends', async () => {
        const mark = `AGW_SANDBOX_RUN=${process.pid}-setsid`;
        // The command ends once its setsid child is seen running (it wrote `started`).
        const result = await run(
          "setsid sh -c 'echo started > started; sleep 60; touch marker' & while [ ! -s started ]; do sleep 0.01; done; echo child started",
          { AGW_SANDBOX_RUN: mark.split('=')[1]! },
        );
        expect(result).to.include({ exitCode: 0 });
        expect(result.output).to.contain('child started');
        // The PID namespace ended with bwrap, before the run resolved: nothing of it is left.
        const left = await runningWith(mark);
        for (const pid of left) process.kill(pid, 'SIGKILL');
        expect(left, 'processes of the command still running').to.deep.equal([]);
      });

      it('runs a command full of shell metacharacters and quotes exactly as it would without the sandbox', async () => {
        const command = [
          `printf '%s|' "a  b" 'c'"'"'d' "\\$HOME" '$(touch pwned)' \`echo bq\` $((6*7)) ünï 🎉; echo`,
          'x=\'$(echo no) `echo no` ; | &&\'; echo "$x"; echo "$0" "$#"',
          "for i in 1 2; do printf '<%s>' \"$i\"; done; echo; cat <<'EOF'\n$nothing here\\n\nEOF",
          '(exit 4) || echo "status $?"; echo err >&2; env | sort; exit 3',
        ].join('\n');
        const env = { GIVEN: 'line one\nline two $(touch pwned) \'q\' "d" \\ ünï' };
        const without = await inner.run(command, { ...options, env: { ...options.env, ...env } });
        const within = await run(command, env);
        // The same lines; stdout and stderr come through two pipes, read in whichever order they
        // are ready, so `err` may come before or after the lines around it.
        const lines = (output: string) => output.split('\n').sort();
        expect(lines(within.output)).to.deep.equal(lines(without.output));
        expect(within.exitCode).to.equal(3);
        expect(without.exitCode).to.equal(3);
        expect(within.output).not.to.contain('AGW_SB_');
        expect(await readdir(layout.worktree)).to.deep.equal([]);
      });
    });

    describe('JOB_SANDBOX_NETWORK: what a command can reach on the network', () => {
      let root: string;
      let layout: ReturnType<typeof serviceLayout>;
      let host: Server;
      let port: number;
      const connect = async (network: 'none' | 'host', target: string) =>
        new BwrapSandboxedShell(new ChildProcessShellExecutor(), { ...layout, network }).run(CONNECT, {
          cwd: layout.worktree,
          timeoutMs: 20_000,
          env: { ...ENV, NODE: sandboxNode(), TARGET: target },
        });

      beforeEach(async () => {
        root = mkdtempSync('/var/tmp/agw-sandbox-net-');
        layout = serviceLayout(root);
        ({ server: host, port } = await greetingServer());
      });
      afterEach(async () => {
        await new Promise((resolve) => host.close(resolve));
        rmSync(root, { recursive: true, force: true });
      });

      it("none: cannot connect to a server on the host's loopback, nor to PostgreSQL's 127.0.0.1:5432", async () => {
        const toTest = await connect('none', `127.0.0.1:${port}`);
        expect(toTest, toTest.output).to.include({ exitCode: 0 });
        expect(toTest.output).to.equal('refused ECONNREFUSED\n');
        const toDatabase = await connect('none', '127.0.0.1:5432');
        expect(toDatabase.output).to.equal('refused ECONNREFUSED\n');
      });

      it('host: connects to the same server (the host network, localhost included)', async () => {
        const result = await connect('host', `127.0.0.1:${port}`);
        expect(result, result.output).to.include({ exitCode: 0 });
        expect(result.output).to.equal('connected\nhello from the host\n');
      });

      it('none: has a loopback of its own, nothing else', async () => {
        const shell = new BwrapSandboxedShell(new ChildProcessShellExecutor(), { ...layout, network: 'none' });
        // A server and its client inside the sandbox: its own 127.0.0.1 works.
        const result = await shell.run(
          `"$NODE" -e 'const net = require("net"); const s = net.createServer((c) => c.end("inside\\n")).listen(0, "127.0.0.1", () => net.connect(s.address().port, "127.0.0.1").on("data", (d) => { process.stdout.write(String(d)); s.close(); }));'; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '`,
          { cwd: layout.worktree, timeoutMs: 20_000, env: { ...ENV, NODE: sandboxNode() } },
        );
        expect(result, result.output).to.include({ exitCode: 0 });
        expect(result.output).to.equal('inside\nlo\n');
      });

      it("none: hides /run, where local services' Unix sockets are (PostgreSQL's, which a network namespace leaves reachable)", async () => {
        const listing = (network: 'none' | 'host') =>
          new BwrapSandboxedShell(new ChildProcessShellExecutor(), { ...layout, network }).run('ls -A /run /var/run/', {
            cwd: layout.worktree,
            timeoutMs: 20_000,
            env: ENV,
          });
        const without = await listing('none');
        expect(without, without.output).to.include({ exitCode: 0 });
        expect(without.output).to.equal('/run:\n\n/var/run/:\n');
        expect((await listing('host')).output).not.to.equal(without.output);
        // Where this machine's PostgreSQL listens on its socket, it is not reachable (nor with the host network: below).
        const socket = ['/run/postgresql/.s.PGSQL.5432', '/var/run/postgresql/.s.PGSQL.5432'].find((path) => existsSync(path));
        if (socket !== undefined) expect((await connect('none', socket)).output).to.equal('refused ENOENT\n');
      });
    });

    describe("the database's Unix socket, hidden whatever JOB_SANDBOX_NETWORK (peer authentication lets the service's user in)", () => {
      const LOCAL_SOCKET = ['/run/postgresql/.s.PGSQL.5432', '/var/run/postgresql/.s.PGSQL.5432'].find((path) => existsSync(path));
      let root: string;
      let layout: ReturnType<typeof serviceLayout>;
      const run = (paths: BwrapSandboxPaths, command: string, env: Record<string, string> = {}) =>
        new BwrapSandboxedShell(new ChildProcessShellExecutor(), paths).run(command, {
          cwd: layout.worktree,
          timeoutMs: 20_000,
          env: { ...ENV, NODE: sandboxNode(), ...env },
        });

      beforeEach(() => {
        root = mkdtempSync('/var/tmp/agw-sandbox-db-');
        layout = serviceLayout(root);
      });
      afterEach(() => rmSync(root, { recursive: true, force: true }));

      (LOCAL_SOCKET === undefined ? it.skip : it)(
        `host: /run/postgresql and /var/run/postgresql are empty, and this machine's PostgreSQL cannot be connected to through its socket${LOCAL_SOCKET === undefined ? ' — pending: no local PostgreSQL socket here' : ''}`,
        async () => {
          const socket = LOCAL_SOCKET as string;
          // Outside the sandbox the socket answers: what the sandbox hides is there.
          const outside = await new ChildProcessShellExecutor().run(CONNECT, {
            cwd: layout.worktree,
            timeoutMs: 20_000,
            env: { ...ENV, NODE: sandboxNode(), TARGET: socket },
          });
          expect(outside.output).to.equal('connected\n');
          for (const network of ['host', 'none'] as const) {
            const listing = await run({ ...layout, network }, 'ls -A /run/postgresql/ /var/run/postgresql/ 2>&1; echo end');
            expect(listing.output, network).to.not.contain('.s.PGSQL');
            for (const target of ['/run/postgresql/.s.PGSQL.5432', '/var/run/postgresql/.s.PGSQL.5432'])
              expect((await run({ ...layout, network }, CONNECT, { TARGET: target })).output, `${network} ${target}`).to.equal('refused ENOENT\n');
          }
          // Under host, the directory is there and empty (an empty tmpfs, like the other hidden directories).
          expect((await run({ ...layout, network: 'host' }, 'ls -A /run/postgresql/; echo end')).output).to.equal('end\n');
        },
      );

      it('hides the socket directory DATABASE_URL names (host=, through a symbolic link), under host and none; the real directory too', async () => {
        const real = join(root, 'pg-socket');
        const link = join(root, 'pg-socket-link');
        mkdirSync(real);
        symlinkSync(real, link);
        const server = createServer((connection) => connection.end('database\n'));
        await new Promise<void>((resolve) => server.listen(join(real, '.s.PGSQL.5432'), resolve));
        try {
          const paths = { ...layout, databaseSocketDirs: postgresSocketDirs(`postgres:///gateway?host=${link}`, undefined) };
          // Not named, the server is reachable from the sandbox: what hides it is the directory named.
          const notNamed = await run({ ...layout, network: 'host' }, CONNECT, { TARGET: join(link, '.s.PGSQL.5432') });
          expect(notNamed.output).to.equal('connected\ndatabase\n');
          for (const network of ['host', 'none'] as const)
            for (const target of [join(link, '.s.PGSQL.5432'), join(real, '.s.PGSQL.5432')])
              expect((await run({ ...paths, network }, CONNECT, { TARGET: target })).output, `${network} ${target}`).to.equal('refused ENOENT\n');
          expect((await run({ ...paths, network: 'host' }, `ls -A "${real}"; echo end`)).output).to.equal('end\n');
        } finally {
          await new Promise((resolve) => server.close(resolve));
        }
      });

      it("the binding hides DATABASE_URL's socket directory and /run/postgresql from JOB_AGENT_COMMAND (host network by default)", async () => {
        const real = join(root, 'pg-socket');
        mkdirSync(real);
        const server = createServer((connection) => connection.end('database\n'));
        await new Promise<void>((resolve) => server.listen(join(real, '.s.PGSQL.5432'), resolve));
        try {
          const probe = [join(real, '.s.PGSQL.5432'), ...(LOCAL_SOCKET === undefined ? [] : [LOCAL_SOCKET])]
            .map((socket) => `test -S ${socket} && echo "visible ${socket}" || echo "hidden ${socket}"`)
            .join('; ');
          const config = loadConfig(
            {
              DATA_DIR: join(root, 'data'),
              DATABASE_URL: `postgresql:///gateway?host=${encodeURIComponent(real)}`,
              JOB_SANDBOX: 'bwrap',
              JOB_AGENT_COMMAND: probe,
            },
            root,
          );
          expect(config.jobs.sandboxNetwork).to.equal('host');
          const c = new Container();
          c.bind(TOKENS.ShellExecutor).toConstantValue(new ChildProcessShellExecutor());
          c.bind(TOKENS.SecretStore).toConstantValue(new EnvironmentSecretStore({}, AI_PROVIDERS));
          c.bind(TOKENS.Clock).toConstantValue(new FixedClock());
          c.bind(TOKENS.Logger).toConstantValue(new RecordingLogger());
          bindJobs(c, config);
          const runner = await c.getAsync(TOKENS.JobRunner);
          const id = '40000000-0000-4000-8000-0000000000b3';
          const job = {
            id,
            job: 'Look around',
            status: 'running',
            source: { kind: 'api' },
            llmProvider: null,
            llmModel: null,
            branch: `job/${id}`,
          } as unknown as Job;
          const changes: JobChange[] = [];
          await runner.run(job, async (change) => void changes.push(change), new AbortController().signal);
          const finished = changes.at(-1)!;
          expect(finished.status, String(finished.log)).to.equal('succeeded');
          expect(finished.log)
            .to.contain(`hidden ${join(real, '.s.PGSQL.5432')}`)
            .and.not.to.contain('visible');
          if (LOCAL_SOCKET !== undefined) expect(finished.log).to.contain(`hidden ${LOCAL_SOCKET}`);
        } finally {
          await new Promise((resolve) => server.close(resolve));
        }
      });
    });

    describe('the binding (JOB_SANDBOX=bwrap, JOB_AGENT_COMMAND)', () => {
      it("sandboxes the agent's command and only it: the runner's own git commands run as before", async () => {
        const root = mkdtempSync('/var/tmp/agw-sandbox-binding-');
        try {
          const dataDir = join(root, 'data');
          mkdirSync(join(dataDir, 'pglite'), { recursive: true });
          await writeFile(join(dataDir, 'pglite', 'PG_VERSION'), '17\n');
          const config = loadConfig(
            { DATA_DIR: dataDir, JOB_SANDBOX: 'bwrap', JOB_AGENT_COMMAND: `ls -A ${dataDir}/pglite; echo "processes: $(ls /proc | grep -c '^[0-9]')"` },
            root,
          );
          const scripts: string[] = [];
          const real = new ChildProcessShellExecutor();
          const c = new Container();
          c.bind(TOKENS.ShellExecutor).toConstantValue({
            run: (command: string, options: ShellOptions) => (scripts.push(command), real.run(command, options)),
          });
          c.bind(TOKENS.SecretStore).toConstantValue(new EnvironmentSecretStore({}, AI_PROVIDERS));
          // The runners read the time (a GitHub job's time without a run, since 44d31bc).
          c.bind(TOKENS.Clock).toConstantValue(new FixedClock());
          c.bind(TOKENS.Logger).toConstantValue(new RecordingLogger());
          bindJobs(c, config);
          const runner = await c.getAsync(TOKENS.JobRunner);
          const id = '40000000-0000-4000-8000-0000000000b1';
          const job = {
            id,
            job: 'Look around',
            status: 'running',
            source: { kind: 'api' },
            llmProvider: null,
            llmModel: null,
            branch: `job/${id}`,
          } as unknown as Job;
          const changes: JobChange[] = [];
          await runner.run(job, async (change) => void changes.push(change), new AbortController().signal);
          const finished = changes.at(-1)!;
          expect(finished.status, String(finished.log)).to.equal('succeeded');
          // The database's files are not there; a handful of processes, not the machine's.
          expect(finished.log).not.to.contain('PG_VERSION');
          expect(Number(/processes: (\d+)/.exec(finished.log ?? '')?.[1])).to.be.below(10);
          expect(scripts.filter((script) => script === BWRAP_SCRIPT)).to.have.lengthOf(1);
          expect(scripts.filter((script) => script !== BWRAP_SCRIPT).length).to.be.above(0);
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      });
    });

    describe('the binding: JOB_SANDBOX_NETWORK by default', () => {
      /** Whether the test's server is seen listening from the command's network namespace (no tool needed: /proc/net/tcp). */
      const listening = () =>
        `grep -qi ":${port.toString(16).padStart(4, '0')} 00000000:0000 0A" /proc/net/tcp && echo port-listening || echo port-not-listening`;
      let host: Server;
      let port: number;
      let root: string;
      beforeEach(async () => {
        ({ server: host, port } = await greetingServer());
        root = mkdtempSync('/var/tmp/agw-sandbox-net-binding-');
      });
      afterEach(async () => {
        await new Promise((resolve) => host.close(resolve));
        rmSync(root, { recursive: true, force: true });
      });

      /** The local runner as bound for `env`, run on one job; what it logged and what the model was given and got back. */
      const runJob = async (env: Record<string, string>, agentSecrets: Record<string, string> = {}) => {
        const config = loadConfig({ DATA_DIR: join(root, 'data'), JOB_SANDBOX: 'bwrap', ...env }, root);
        const logger = new RecordingLogger();
        const ai = new ScriptedAiClient([
          {
            text: '',
            calls: [
              { name: 'run_command', input: { command: listening() } },
              { name: 'run_command', input: { command: 'echo "curl: (6) Could not resolve host: example.com" >&2; exit 6' } },
            ],
          },
          { text: 'Done.' },
        ]);
        const c = new Container();
        c.bind(TOKENS.ShellExecutor).toConstantValue(new ChildProcessShellExecutor());
        c.bind(TOKENS.SecretStore).toConstantValue(new EnvironmentSecretStore(agentSecrets, AI_PROVIDERS));
        c.bind(TOKENS.Clock).toConstantValue(new FixedClock());
        c.bind(TOKENS.Logger).toConstantValue(logger);
        bindJobs(c, config);
        (await c.rebind(TOKENS.AiClient)).toConstantValue(ai);
        const runner = await c.getAsync(TOKENS.JobRunner);
        const id = '40000000-0000-4000-8000-0000000000b2';
        const job = {
          id,
          job: 'Look around',
          status: 'running',
          source: { kind: 'api' },
          llmProvider: null,
          llmModel: null,
          branch: `job/${id}`,
        } as unknown as Job;
        const changes: JobChange[] = [];
        await runner.run(job, async (change) => void changes.push(change), new AbortController().signal);
        return { finished: changes.at(-1)!, ai, warnings: logger.entries.filter((entry) => entry.level === 'warn') };
      };

      it("none for the built-in agent: its command does not see the host's loopback, and the model is told it has no network", async () => {
        const { finished, ai, warnings } = await runJob({});
        expect(warnings).to.deep.equal([]);
        expect(finished.status, String(finished.log)).to.equal('succeeded');
        const [seen, failed] = ai.toolResults as Array<{ exitCode: number; output: string; note?: string }>;
        expect(seen).to.deep.equal({ exitCode: 0, timedOut: false, output: 'port-not-listening\n' });
        // A failed command's result says why a download or a fetch may have failed.
        expect(failed).to.include({ exitCode: 6 });
        expect(failed?.note).to.contain('without a network');
        expect(ai.requests[0]?.system).to.contain('Your commands have no network');
        expect(ai.requests[0]?.tools?.find((tool) => tool.name === 'run_command')?.description).to.contain('no network');
      });

      it('host for JOB_AGENT_COMMAND (it calls its model itself): its command sees the host network', async () => {
        const { finished } = await runJob({ JOB_AGENT_COMMAND: listening() });
        expect(finished.status, String(finished.log)).to.equal('succeeded');
        expect(finished.log).to.contain('port-listening').and.not.to.contain('port-not-listening');
      });

      it('says at start-up, naming them, that AGENT_* secrets meet commands without a network', async () => {
        const { warnings } = await runJob({}, { AGENT_DEPLOY_TOKEN: 'dpl-secret-value', AGENT_LLM_SEARCH_KEY: 'srch-value' });
        expect(warnings).to.have.lengthOf(1);
        expect(warnings[0]?.message).to.contain('JOB_SANDBOX_NETWORK=host');
        expect(warnings[0]?.fields).to.deep.equal({ secrets: ['AGENT_DEPLOY_TOKEN', 'AGENT_LLM_SEARCH_KEY'] });
        // Not with the host network.
        expect((await runJob({ JOB_SANDBOX_NETWORK: 'host' }, { AGENT_DEPLOY_TOKEN: 'dpl-secret-value' })).warnings).to.deep.equal([]);
      });

      it('none for JOB_AGENT_COMMAND when JOB_SANDBOX_NETWORK=none', async () => {
        const { finished } = await runJob({ JOB_AGENT_COMMAND: listening(), JOB_SANDBOX_NETWORK: 'none' });
        expect(finished.log).to.contain('port-not-listening');
      });
    });

    describe('the start-up check', () => {
      it('passes where bwrap can build a sandbox', async () => {
        expect(await checkBwrap(BWRAP)).to.equal(undefined);
      });

      it('passes where bwrap can give the sandbox a network namespace of its own (JOB_SANDBOX_NETWORK=none)', async () => {
        expect(await checkBwrapNetwork(BWRAP)).to.equal(undefined);
      });

      it('says, naming JOB_SANDBOX_NETWORK=host as the way out, when bwrap builds a sandbox but no network namespace', async () => {
        const dir = await tempDir('bwrap-without-net');
        await mkdir(join(dir, 'bin'));
        // A bwrap that builds sandboxes but is refused the network namespace (as a seccomp profile may).
        await writeFile(
          join(dir, 'bin', 'bwrap'),
          `#!/bin/sh\nif [ "$1" = --unshare-net ]; then echo "bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted" >&2; exit 1; fi\nexec ${BWRAP} "$@"\n`,
          { mode: 0o755 },
        );
        const bwrap = findBwrap(join(dir, 'bin'));
        expect(await checkBwrap(bwrap)).to.equal(undefined);
        const problem = await checkBwrapNetwork(bwrap!);
        expect(problem)
          .to.contain('cannot give it a network namespace of its own')
          .and.to.contain('Failed RTM_NEWADDR')
          .and.to.contain('JOB_SANDBOX_NETWORK=host');
        // At start-up, before anything is opened: the gateway names JOB_SANDBOX_NETWORK.
        const dataDir = await tempDir('sandbox-net-start');
        const config = loadConfig({ DATA_DIR: dataDir, JOB_SANDBOX: 'bwrap', LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0' }, dataDir);
        const path = process.env.PATH;
        // The fake bwrap first; the rest of PATH as it was (git for the jobs repository).
        process.env.PATH = `${join(dir, 'bin')}:${path}`;
        let error: unknown;
        try {
          // Started (without the check), it is stopped again: the assertion below says what went wrong.
          const started = await Gateway.start(config).catch((e: unknown) => void (error = e));
          await started?.stop();
        } finally {
          process.env.PATH = path;
        }
        expect(error).to.be.instanceOf(StartupError);
        expect((error as Error).message).to.match(/^JOB_SANDBOX_NETWORK: .* cannot give it a network namespace of its own/);
        // With the host's network (JOB_AGENT_COMMAND's default), the same bwrap passes the start-up check.
        expect(loadConfig({ JOB_SANDBOX: 'bwrap', JOB_AGENT_COMMAND: 'agent' }, dataDir).jobs.sandboxNetwork).to.equal('host');
      });

      it('says bwrap is not installed when there is none on PATH', async () => {
        const dir = await tempDir('no-bwrap');
        expect(findBwrap(dir)).to.equal(undefined);
        expect(await checkBwrap(findBwrap(dir))).to.equal('bwrap (Debian package bubblewrap) is not installed: no bwrap on PATH');
      });

      it('says what failed when bwrap cannot build a sandbox', async () => {
        const dir = await tempDir('failing-bwrap');
        await mkdir(join(dir, 'bin'));
        await writeFile(join(dir, 'bin', 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', { mode: 0o755 });
        const problem = await checkBwrap(findBwrap(join(dir, 'bin')));
        expect(problem)
          .to.contain(join(dir, 'bin', 'bwrap'))
          .and.to.contain('No permissions to create new namespace');
      });

      it('refuses to start the gateway with JOB_SANDBOX=bwrap when bwrap is missing, naming JOB_SANDBOX', async () => {
        const dataDir = await tempDir('sandbox-start');
        const config = loadConfig({ DATA_DIR: dataDir, JOB_SANDBOX: 'bwrap', LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0' }, dataDir);
        const path = process.env.PATH;
        process.env.PATH = await tempDir('no-bwrap-path');
        let error: unknown;
        try {
          await Gateway.start(config).catch((e: unknown) => (error = e));
        } finally {
          process.env.PATH = path;
        }
        expect(error).to.be.instanceOf(StartupError);
        expect((error as Error).message).to.equal('JOB_SANDBOX: bwrap (Debian package bubblewrap) is not installed: no bwrap on PATH');
      });

      it('refuses a JOB_SANDBOX that is neither none nor bwrap, naming the variable', () => {
        expect(() => loadConfig({ JOB_SANDBOX: 'docker' }, '/srv/gw')).to.throw(/JOB_SANDBOX: "docker" is not one of none, bwrap/);
        expect(loadConfig({}, '/srv/gw').jobs.sandbox).to.equal('none');
        expect(loadConfig({ JOB_SANDBOX: 'BWRAP' }, '/srv/gw').jobs.sandbox).to.equal('bwrap');
      });
    });
  });
}
