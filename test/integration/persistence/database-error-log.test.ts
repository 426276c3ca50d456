import { expect } from 'chai';
import { createPino } from '../../../src/adapters/logging/pino-logger.js';
import { MikroOrmBotTokenStore } from '../../../src/adapters/persistence/mikro-orm-bot-token-store.js';
import { type Engine, openTestDatabase, sql } from '../../support/databases.js';
import { describeWithPostgres } from '../../support/postgres.js';

const TOKEN = '123456:TOKEN-IN-CLEAR';

/** A statement that fails with the bot token in it, as MikroORM reports it, logged by the service's logger. */
const describeFailedStatementLog = (engine: Engine): Mocha.Suite =>
  describe(`the log line of a failed statement on ${engine}`, function () {
    this.timeout(60_000);

    it('names the failure but neither the statement nor the values of the row: no bot token', async () => {
      const opened = await openTestDatabase(engine, 'database-error-log');
      try {
        // A row the table refuses, whatever the engine: the insert fails with its values at hand.
        await sql(opened.database, `alter table settings add constraint refuses_the_token check (value <> '${TOKEN}')`);
        const error = await new MikroOrmBotTokenStore(opened.database, undefined).register(TOKEN, undefined).then(
          () => expect.fail('the token was stored'),
          (caught: unknown) => caught,
        );
        const written: string[] = [];
        createPino('info', { write: (line: string) => void written.push(line) }).error({ err: error }, 'could not register the bot');

        expect(written).to.have.length(1);
        expect(written[0]).to.not.include(TOKEN);
        const err = (JSON.parse(written[0]) as { err: Record<string, unknown> }).err;
        expect(err).to.include({ type: 'CheckConstraintViolationException', code: '23514', constraint: 'refuses_the_token' });
        expect(err.message).to.match(/^new row for relation "settings" violates check constraint "refuses_the_token"/);
      } finally {
        await opened.close();
      }
    });
  });

describeFailedStatementLog('pglite');

describeWithPostgres('a failed statement on PostgreSQL', () => {
  describeFailedStatementLog('postgresql');
});
