import { expect } from 'chai';
import { PinoLogger, createPino } from '../../../src/adapters/logging/PinoLogger.js';
import { Database } from '../../../src/adapters/persistence/Database.js';
import { SqlBotTokenStore } from '../../../src/adapters/persistence/SqlBotTokenStore.js';
import { tempDir } from '../../support/gatewayProcess.js';
import { createScratchDatabase, describeWithPostgres } from '../../support/postgres.js';

const logger = new PinoLogger(createPino('silent'));

const describeOn = (engine: string, open: () => Promise<{ database: Database; dispose(): Promise<void> }>): void => {
  describe(`SqlBotTokenStore on ${engine}`, function () {
    this.timeout(60_000);
    let opened: Awaited<ReturnType<typeof open>>;
    before(async () => {
      opened = await open();
      await opened.database.migrate();
    });
    beforeEach(async () => opened.database.execute("delete from settings where key like 'messaging.%'"));
    after(async () => opened?.dispose());

    it('has the configured token and no secret before any registration', async () => {
      const store = new SqlBotTokenStore(opened.database, '1:configured');
      expect(await store.current()).to.equal('1:configured');
      expect(await store.webhookSecret()).to.equal(undefined);
    });

    it('keeps a registered token with its generated secret, for a fresh instance too (a restart, another replica)', async () => {
      await new SqlBotTokenStore(opened.database, '1:configured').register('2:registered', 'generated_secret-1');
      const fresh = new SqlBotTokenStore(opened.database, '1:configured');
      expect(await fresh.current()).to.equal('2:registered');
      expect(await fresh.webhookSecret()).to.equal('generated_secret-1');
    });

    it('a registration without a secret of its own drops the secret stored before', async () => {
      const store = new SqlBotTokenStore(opened.database, undefined);
      await store.register('2:registered', 'generated_secret-1');
      await store.register('3:again', undefined);
      expect(await store.webhookSecret()).to.equal(undefined);
      const fresh = new SqlBotTokenStore(opened.database, undefined);
      expect(await fresh.current()).to.equal('3:again');
      expect(await fresh.webhookSecret()).to.equal(undefined);
    });
  });
};

describeOn('PGlite', async () => {
  const database = await Database.open({ databaseUrl: undefined, dataDir: await tempDir('bot-tokens'), logger });
  return { database, dispose: () => database.close() };
});

describeWithPostgres('SqlBotTokenStore on PostgreSQL', () => {
  describeOn('PostgreSQL', async () => {
    const scratch = await createScratchDatabase();
    const database = await Database.open({ databaseUrl: scratch.url, dataDir: await tempDir('bot-tokens'), logger });
    return {
      database,
      dispose: async () => {
        await database.close();
        await scratch.drop();
      },
    };
  });
});
