import { expect } from 'chai';
import pg from 'pg';
import { Gateway } from '../../../src/container/gateway.js';
import { loadConfig } from '../../../src/container/config.js';
import { StartupError } from '../../../src/container/startup-error.js';
import { tempDir } from '../../support/gateway-process.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../../support/postgres.js';

describeWithPostgres('The service on a database that refuses its migrations', function () {
  this.timeout(60_000);
  let scratch: ScratchDatabase | undefined;

  afterEach(async () => {
    await scratch?.drop();
    scratch = undefined;
  });

  it('stops naming DATABASE_URL, as the CLI does, instead of a bare Error', async () => {
    scratch = await createScratchDatabase();
    // Another application's table, named as one of the gateway's: the first migration fails.
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    try {
      await client.query('create table jobs (id serial primary key, title text)');
    } finally {
      await client.end();
    }
    const dataDir = await tempDir('start-migration-failure');
    const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: scratch.url, LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0' }, dataDir);
    const error = await Gateway.start(config).then(
      async (gateway) => {
        await gateway.stop();
        return undefined;
      },
      (failure: Error) => failure,
    );
    expect(error).to.be.instanceOf(StartupError);
    expect(error?.message).to.match(
      /^DATABASE_URL: Migrating the database failed, and none of its \d+ pending migrations \(.*\) was applied: relation "jobs" already exists: the database holds tables or other objects that agent-gateway did not create/,
    );
  });
});
