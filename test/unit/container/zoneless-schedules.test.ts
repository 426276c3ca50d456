import { expect } from 'chai';
import { loadSchedules } from '../../../src/container/load-schedules.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/container/config.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';

/*
 * Schedules without `timezone` are read in UTC (no longer in the service's zone): a service
 * started in another zone says so at start-up, naming them, so that an upgrade does not move
 * their runs without a word.
 */
describe('loadSchedules: schedules without timezone in a service running in another zone', () => {
  let dir: string;
  const savedTz = process.env.TZ;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agw-zoneless-'));
  });
  afterEach(async () => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
    await rm(dir, { recursive: true, force: true });
  });

  const load = async (tz: string, schedules: object[]) => {
    process.env.TZ = tz;
    const file = join(dir, 'CRONS.json');
    await writeFile(
      file,
      JSON.stringify(schedules.map((entry) => ({ enabled: true, actions: [{ type: 'webhook', url: 'https://example.com/x' }], ...entry }))),
    );
    const logger = new RecordingLogger();
    await loadSchedules(loadConfig({ CRONS_FILE: file, DATA_DIR: join(dir, 'data'), TRIGGERS_DIR: dir }, dir), logger);
    return logger.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message);
  };

  it('warns at start-up, naming the enabled ones, when the process’s zone is not UTC', async () => {
    const warnings = await load('Europe/Berlin', [
      { name: 'plain', schedule: '0 3 * * *' },
      { name: 'zoned', schedule: '0 3 * * *', timezone: 'Europe/Berlin' },
      { name: 'off', schedule: '0 3 * * *', enabled: false },
    ]);
    expect(warnings).to.deep.equal([
      'schedules without "timezone" are read in UTC, not in this process\'s zone Europe/Berlin: "plain" (give them "timezone": "Europe/Berlin" to run on its clocks)',
    ]);
  });

  it('says nothing in a process running in UTC', async () => {
    expect(await load('UTC', [{ name: 'plain', schedule: '0 3 * * *' }])).to.deep.equal([]);
  });
});
