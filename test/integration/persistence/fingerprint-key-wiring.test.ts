import { expect } from 'chai';
import { pino } from 'pino';
import { HmacFingerprintKey } from '../../../src/adapters/crypto/hmac-fingerprint-key.js';
import { buildContainer } from '../../../src/container/build-container.js';
import { loadConfig } from '../../../src/container/config.js';
import { TOKENS } from '../../../src/container/tokens.js';
import { openTestDatabase, sql, type TestDatabase } from '../../support/databases.js';
import { tempDir } from '../../support/gateway-process.js';

/*
 * The service's runs record fingerprints under the installation's key, and whatever compares them
 * (the resumed run, the approval's decision, the run's page) uses the same key: one that made them
 * without it would take every recorded action for a changed one.
 */
describe('the installation fingerprint key in the service', () => {
  let opened: TestDatabase;
  before(async () => {
    opened = await openTestDatabase('pglite', 'fingerprint-key-wiring');
  });
  after(async () => opened?.close());

  it('is the stored key, given to the runs, to firing (approvals resume there), to the admin overview and to the scheduler (schedule fingerprints)', async () => {
    const dir = await tempDir('fingerprint-key-wiring');
    const container = buildContainer(loadConfig({ DATA_DIR: dir }, dir), {
      pino: pino({ level: 'silent' }),
      database: opened.database,
      env: {},
      triggers: [],
      schedules: [],
    });
    try {
      const key = await container.getAsync(TOKENS.FingerprintKey);
      const [stored] = await sql<{ value: string }>(opened.database, "select value from settings where key = 'triggers.fingerprint_key'");
      expect(key.mac('x')).to.equal(new HmacFingerprintKey(stored.value).mac('x'));
      const runTrigger = (await container.getAsync(TOKENS.RunTrigger)) as unknown as { settings: { fingerprintKey?: unknown } };
      const fire = (await container.getAsync(TOKENS.FireTriggers)) as unknown as { fingerprintKey?: unknown };
      const overview = (await container.getAsync(TOKENS.AdminOverview)) as unknown as { sources: { fingerprintKey?: unknown } };
      expect(runTrigger.settings.fingerprintKey).to.equal(key);
      expect(fire.fingerprintKey).to.equal(key);
      expect(overview.sources.fingerprintKey).to.equal(key);
      const scheduler = (await container.getAsync(TOKENS.Scheduler)) as unknown as { fingerprintKey?: unknown };
      expect(scheduler.fingerprintKey).to.equal(key);
    } finally {
      await container.unbindAllAsync();
    }
  });
});
