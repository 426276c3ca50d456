import { openTestDatabase, type Engine } from '../support/databases.js';
import { describeWithPostgres } from '../support/postgres.js';
import { describeReadinessCheckContract } from './readiness-check.contract.js';

/** The database's check, stopped by closing the database behind it (closing it again at the end is harmless). */
const onDatabase = async (engine: Engine) => {
  const opened = await openTestDatabase(engine, 'readiness');
  return { check: opened.database.readiness(), stop: () => opened.database.close(), close: () => opened.close() };
};

describeReadinessCheckContract('the database on PGlite', () => onDatabase('pglite'));

describeWithPostgres('ReadinessCheck on PostgreSQL', () => {
  describeReadinessCheckContract('the database on PostgreSQL', () => onDatabase('postgresql'));
});
