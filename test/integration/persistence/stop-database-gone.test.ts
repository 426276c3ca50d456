import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { createPino } from '../../../src/adapters/logging/pino-logger.js';
import { loadConfig } from '../../../src/container/config.js';
import { Gateway } from '../../../src/container/gateway.js';
import { TOKENS } from '../../../src/container/tokens.js';
import type { ShellExecutor, ShellOptions, ShellRun } from '../../../src/ports/shell-executor.js';
import { tempDir } from '../../support/gateway-process.js';
import { within } from '../../support/time-limit.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../../support/postgres.js';
import { type PostgresProxy, startPostgresProxy } from '../../support/postgres-outage.js';

/*
 * Gateway.stop on PostgreSQL while the server is gone (its sessions cut, new ones refused), with
 * a job running: the stop ends soon after its grace period (SHUTDOWN_TIMEOUT_MS), and the job's
 * task stays stored for the next start.
 */

const SHUTDOWN_TIMEOUT_MS = 300;

describeWithPostgres('Gateway.stop while PostgreSQL is gone', function () {
  this.timeout(90_000);
  let scratch: ScratchDatabase | undefined;
  let proxy: PostgresProxy | undefined;
  let gateway: Gateway | undefined;

  afterEach(async () => {
    await gateway?.stop().catch(() => undefined);
    gateway = undefined;
    await proxy?.close();
    proxy = undefined;
    await scratch?.drop();
    scratch = undefined;
  });

  /** The service on the scratch database through the proxy, with a small grace period; what it logs goes to `logged`. */
  const start = async (logged: Array<{ msg: string }>): Promise<{ gateway: Gateway; dataDir: string }> => {
    scratch = await createScratchDatabase();
    proxy = await startPostgresProxy(scratch.url);
    const dataDir = await tempDir('stop-database-gone');
    const config = loadConfig(
      {
        DATA_DIR: dataDir,
        DATABASE_URL: proxy.url,
        HOST: '127.0.0.1',
        PORT: '0',
        JOB_AGENT_COMMAND: 'true',
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      },
      dataDir,
    );
    gateway = await Gateway.start(config, createPino('info', { write: (line: string) => void logged.push(JSON.parse(line)) }));
    return { gateway, dataDir };
  };

  /** The server gone: its sessions cut, new connections refused. */
  const serverGone = (): void => {
    proxy!.refusing = true;
    proxy!.cut();
  };

  /** How long `stop` took (ms); fails naming the stop when it has not ended after `boundMs`. */
  const timedStop = async (stopping: Gateway, boundMs: number): Promise<number> => {
    const began = performance.now();
    await within(boundMs, 'the stop', stopping.stop());
    return performance.now() - began;
  };

  it("ends soon after the grace period when a job's git step is still running as it ends: the step's outcome reaches the job's runner, which ends, and the job's task stays stored", async () => {
    const logged: Array<{ msg: string }> = [];
    const { gateway: running, dataDir } = await start(logged);

    // The job's first git step waits for the file `go`, written once the shell's close (at the
    // stop, bounded by the grace period) has returned: the step still runs when the grace period
    // ends, and its spawner is let go. At most 10 s: it must not outlive a failed test.
    const shell = (await running.container.getAsync(TOKENS.ShellExecutor)) as ShellExecutor & { close(waitMs?: number): Promise<void> };
    const go = join(dataDir, 'go');
    const run = shell.run.bind(shell);
    const close = shell.close.bind(shell);
    let stepStarted: () => void = () => undefined;
    const stepRuns = new Promise<void>((resolve) => (stepStarted = resolve));
    let held = false;
    shell.run = (command: string, options: ShellOptions): Promise<ShellRun> => {
      if (held || options.signal !== undefined) return run(command, options);
      held = true;
      const running = run(`i=0; while [ ! -e "${go}" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done; ${command}`, options);
      stepStarted();
      return running;
    };
    shell.close = async (waitMs?: number): Promise<void> => {
      await close(waitMs);
      await writeFile(go, '');
    };

    const { key } = await (await running.container.getAsync(TOKENS.KeyAdministration)).create('test');
    const created = await fetch(`http://127.0.0.1:${running.port}/api/create-job`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ job: 'Fix the login form' }),
    });
    expect(created.status).to.equal(200);
    await stepRuns;

    serverGone();
    const tookMs = await timedStop(running, 30_000);
    gateway = undefined;

    const messages = logged.map((line) => line.msg);
    // Unanswered, the runner waited for its step for good, and the task queue's stop for it until
    // it gave up, 15 s past the grace period.
    expect(messages, "the job's runner ended before the stop").to.include('job run stopped by its abort');
    expect(messages.indexOf('job run stopped by its abort')).to.be.below(messages.indexOf('stopped'));
    expect(tookMs, 'the stop (ms), its grace period 300 ms').to.be.below(10_000);

    const admin = new pg.Client({ connectionString: scratch!.url });
    await admin.connect();
    try {
      const tasks = await admin.query("select state from pgboss.job where name = 'job-run'");
      expect(tasks.rows, "the job's task, stored for the next start").to.have.length(1);
      expect(tasks.rows[0].state).to.not.equal('completed');
    } finally {
      await admin.end();
    }
  });

  it('ends when a transaction was cut off by the outage: the connection it held is not waited for when the database closes', async () => {
    const logged: Array<{ msg: string }> = [];
    const { gateway: running } = await start(logged);
    const database = await running.container.getAsync(TOKENS.Database);
    // The server goes while the transaction holds its connection: its next statement, and its
    // rollback, fail on the lost connection.
    const failed = await database.orm.em
      .fork()
      .transactional(async (em) => {
        await em.getConnection().execute('select 1');
        serverGone();
        await em.getConnection().execute('select 1');
      })
      .then(
        () => null,
        (error: Error) => error,
      );
    expect(failed?.name, 'the statement after the outage').to.equal('DatabaseUnavailable');

    // Unbounded before: the pool's end waited for the connection the transaction held, for good.
    const tookMs = await timedStop(running, 30_000);
    gateway = undefined;
    expect(tookMs, 'the stop (ms), its grace period 300 ms').to.be.below(10_000);
    expect(logged.map((line) => line.msg)).to.include('stopped');
  });
});
