import { expect } from 'chai';
import { type ChildProcess, spawn } from 'node:child_process';
import { EmbeddedLock } from '../../../src/adapters/persistence/embedded-lock.js';
import { closeEngine, openEngine } from '../../../src/adapters/persistence/open-engine.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { migratedDataDir } from '../../support/data-dirs.js';
import { waitFor } from '../../support/http.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/*
 * A service started while a CLI command has the embedded database open (for about half a
 * second) waits for the command instead of stopping with "in use by process N"; a holder that
 * keeps it past the wait is still refused. The command is stood in by a lock held in this process
 * under the pid of a live child process of this machine.
 */
describe('the embedded database held by a process of this machine when a service starts', function () {
  this.timeout(60_000);
  let command: ChildProcess | undefined;

  beforeEach(() => {
    command = spawn('sleep', ['60'], { stdio: 'ignore' });
  });
  afterEach(() => {
    command?.kill('SIGKILL');
  });

  it('waits for it, saying so once, and opens the database once it is let go', async () => {
    const dataDir = await migratedDataDir('busy-wait');
    const holder = new EmbeddedLock(dataDir, { pid: command!.pid!, isAlive: alive });
    await holder.acquire();
    const logger = new RecordingLogger();
    const opening = openEngine({ databaseUrl: undefined, dataDir, logger, busyWait: { ms: 50_000, pollMs: 20 } });
    let settled = false;
    void opening.then(
      () => (settled = true),
      () => (settled = true),
    );
    await waitFor(() => logger.entries.some((entry) => entry.level === 'warn' && /in use by another process/.test(entry.message)), 20_000, 'the warning');
    expect(settled, 'the open ended while the command held the database').to.equal(false);
    const warning = logger.entries.filter((entry) => entry.level === 'warn')[0];
    expect(warning.fields).to.include({ pid: command!.pid });
    // Says how long, and that another server would not let go (not only "a CLI command?").
    expect(warning.message).to.equal(
      `the embedded database is in use by another process (pid ${command!.pid}): waiting up to 50 s for it to let go (a CLI command does; another server on this DATA_DIR does not)`,
    );
    await holder.release();
    const open = await opening;
    try {
      expect(open.engine).to.equal('pglite');
      expect(
        logger.entries.filter((entry) => /in use by another process/.test(entry.message)),
        'said once',
      ).to.have.length(1);
    } finally {
      await closeEngine(open);
    }
  });

  it('is refused, naming the holder, when it keeps the database past the wait', async () => {
    const dataDir = await migratedDataDir('busy-refused');
    const holder = new EmbeddedLock(dataDir, { pid: command!.pid!, isAlive: alive });
    await holder.acquire();
    try {
      const error = await openEngine({ databaseUrl: undefined, dataDir, logger: new RecordingLogger(), busyWait: { ms: 100, pollMs: 20 } }).then(
        () => expect.fail('opened a database another process holds'),
        (caught: Error) => caught,
      );
      expect(error.message).to.match(new RegExp(`is in use by process ${command!.pid}`));
    } finally {
      await holder.release();
    }
  });
});
