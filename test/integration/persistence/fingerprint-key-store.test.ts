import { expect } from 'chai';
import { HmacFingerprintKey } from '../../../src/adapters/crypto/hmac-fingerprint-key.js';
import { MikroOrmFingerprintKeyStore } from '../../../src/adapters/persistence/mikro-orm-fingerprint-key-store.js';
import { openTestDatabase, sql, type Engine, type TestDatabase } from '../../support/databases.js';
import { describeWithPostgres } from '../../support/postgres.js';

/*
 * The installation's fingerprint key: made once, by whichever replica or tool first needs it, and
 * the same for all of them from then on (a replaced key would make every recorded fingerprint
 * look changed).
 */
const suite = (engine: Engine) => {
  let opened: TestDatabase;
  before(async () => {
    opened = await openTestDatabase(engine, 'fingerprint-key');
  });
  after(async () => opened?.close());
  beforeEach(async () => void (await sql(opened.database, "delete from settings where key = 'triggers.fingerprint_key'")));

  it('makes a random key of 32 bytes once, and gives the same one on every replica, at once or later', async () => {
    const [a, b] = await Promise.all([new MikroOrmFingerprintKeyStore(opened.database).key(), new MikroOrmFingerprintKeyStore(opened.replica).key()]);
    expect(a).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(b).to.equal(a);
    expect(await new MikroOrmFingerprintKeyStore(opened.replica).key()).to.equal(a);
    const rows = await sql<{ value: string }>(opened.database, "select value from settings where key = 'triggers.fingerprint_key'");
    expect(rows.map((row) => row.value)).to.deep.equal([a]);
  });

  it('is another key on another installation', async () => {
    const first = await new MikroOrmFingerprintKeyStore(opened.database).key();
    await sql(opened.database, "delete from settings where key = 'triggers.fingerprint_key'");
    const second = await new MikroOrmFingerprintKeyStore(opened.database).key();
    expect(second).to.not.equal(first);
    expect(new HmacFingerprintKey(second).mac('x')).to.not.equal(new HmacFingerprintKey(first).mac('x'));
  });
};

describe('MikroOrmFingerprintKeyStore on PGlite', () => suite('pglite'));
describeWithPostgres('MikroOrmFingerprintKeyStore on PostgreSQL (two replicas: two pools on one database)', () => suite('postgresql'));
