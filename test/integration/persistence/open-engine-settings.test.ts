import { dirname } from 'node:path';
import { expect } from 'chai';
import { closeEngine, openEngine, type OpenEngine } from '../../../src/adapters/persistence/open-engine.js';
import { PgliteThread } from '../../../src/adapters/persistence/pglite/pglite-thread.js';
import { emptyPgliteDir } from '../../support/data-dirs.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';

/*
 * The embedded database's memory is set by the settings it boots with (docs/architecture.md,
 * "Memory of the embedded database"): PGlite's defaults would hold about twice the RSS. These
 * settings reach PostgreSQL only through the boot; a change that dropped them would not fail
 * anything else.
 */
describe('openEngine: the settings the embedded database boots with, and where its statements run', function () {
  this.timeout(60_000);

  /** The boot's settings, and whether the statements run on a thread of their own (the HTTP event loop never waits on them). */
  const settingsOf = async (shortLived: boolean): Promise<Record<string, string | boolean>> => {
    const dataDir = dirname(await emptyPgliteDir('engine-settings'));
    const open: OpenEngine = await openEngine({ databaseUrl: undefined, dataDir, logger: new RecordingLogger(), shortLived });
    try {
      if (open.engine !== 'pglite') throw new Error('expected the embedded engine');
      const { rows } = await open.pglite.query<{ name: string; setting: string }>(
        "select name, current_setting(name) as setting from unnest(array['shared_buffers', 'max_connections', 'work_mem']) as name",
      );
      return { ...Object.fromEntries(rows.map((row) => [row.name, row.setting])), ownThread: open.pglite instanceof PgliteThread };
    } finally {
      await closeEngine(open);
    }
  };

  it("the service's: 8MB of shared buffers, 10 connections, 2MB of work memory (not PGlite's 128MB, 100, 4MB), on a thread of its own", async () => {
    expect(await settingsOf(false)).to.deep.equal({ shared_buffers: '8MB', max_connections: '10', work_mem: '2MB', ownThread: true });
  });

  it("a CLI command's: 4MB of shared buffers, 5 connections, on the calling thread (a thread's own start would cost more than the command)", async () => {
    const settings = await settingsOf(true);
    expect(settings.shared_buffers).to.equal('4MB');
    expect(settings.max_connections).to.equal('5');
    expect(settings.ownThread).to.equal(false);
  });
});
