import { expect } from 'chai';
import { NodeApiKeyCrypto } from '../../../src/adapters/crypto/node-api-key-crypto.js';
import { PinoLogger, createPino } from '../../../src/adapters/logging/pino-logger.js';
import { Database } from '../../../src/adapters/persistence/database.js';
import { MikroOrmKeyRepository } from '../../../src/adapters/persistence/mikro-orm-key-repository.js';
import { AuthenticateApiKey } from '../../../src/application/auth/authenticate-api-key.js';
import { CreateApiKey } from '../../../src/application/auth/create-api-key.js';
import type { ApiKeyRecord } from '../../../src/domain/auth/api-key-record.js';
import { DomainError } from '../../../src/domain/errors/domain-error.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';
import { migratedPgliteDataDir, sql } from '../../support/databases.js';

/**
 * The check of an accepted key once its request's body is in (apiKeyRecheck), on the database
 * repository (PGlite): from its cache without a digest while the key stays, refused however the
 * key goes — revoked by this process, deleted elsewhere (the change notification), the table
 * truncated (the cache cleared) — and while notifications are down.
 */
describe('AuthenticateApiKey on the database repository: an accepted key checked again', function () {
  this.timeout(60_000);
  let database: Database;
  let keys: MikroOrmKeyRepository;
  let authenticate: AuthenticateApiKey;
  let digests: number;
  const clock = new FixedClock();
  /** One for the whole file: ids stay unique in its database. */
  const ids = new SequentialIds();

  before(async () => {
    database = await Database.open({
      databaseUrl: undefined,
      dataDir: await migratedPgliteDataDir('accepted-key-recheck'),
      logger: new PinoLogger(createPino('silent')),
    });
    await database.migrate();
  });
  after(() => database.close());

  beforeEach(async () => {
    keys = new MikroOrmKeyRepository(database);
    await keys.start();
    const real = new NodeApiKeyCrypto();
    digests = 0;
    const crypto = Object.assign(Object.create(real) as NodeApiKeyCrypto, { digest: (value: string) => (digests++, real.digest(value)) });
    authenticate = new AuthenticateApiKey(keys, crypto, clock, new RecordingLogger());
  });
  afterEach(() => keys.stop());

  /** A new key, accepted once from the store and once from memory: its record. */
  const accepted = async (): Promise<{ record: ApiKeyRecord; id: string }> => {
    const { key, id } = await new CreateApiKey(keys, new NodeApiKeyCrypto(), ids, clock).execute({ name: 'recheck' });
    await authenticate.accept(key);
    const record = authenticate.acceptKnown(key);
    expect(record, 'known once looked up').to.not.equal(undefined);
    return { record: record!, id };
  };

  const refused = async (record: ApiKeyRecord): Promise<void> => {
    expect(authenticate.stillAccepted(record), 'memory does not vouch for it').to.equal(false);
    const error = await authenticate.stillStored(record).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).to.be.instanceOf(DomainError);
    expect((error as DomainError).code).to.equal('unauthorized');
  };

  /** Until `check` holds; the bound only ends a test that would otherwise wait forever. */
  const eventually = async (check: () => boolean): Promise<void> => {
    const deadline = Date.now() + 15_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('not seen in time');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  it('vouches for a key still stored from its cache, computing no digest', async () => {
    const { record } = await accepted();
    const before = digests;
    expect(authenticate.stillAccepted(record)).to.equal(true);
    expect(digests).to.equal(before);
  });

  it('refuses a key this process revoked', async () => {
    const { record, id } = await accepted();
    expect(await keys.remove(id)).to.equal(true);
    await refused(record);
  });

  it('refuses a key deleted elsewhere, once its change notification is heard', async () => {
    const { record, id } = await accepted();
    await sql(database, 'delete from api_keys where id = ?', [id]);
    await eventually(() => !authenticate.stillAccepted(record));
    await refused(record);
  });

  it('refuses a key of a truncated table (its cache cleared)', async () => {
    const { record } = await accepted();
    await sql(database, 'truncate api_keys');
    await eventually(() => !authenticate.stillAccepted(record));
    await refused(record);
  });

  it('asks the store while notifications are down: a key still stored passes, a deleted one is refused', async () => {
    const kept = await accepted();
    const gone = await accepted();
    await keys.stop();
    expect(authenticate.stillAccepted(kept.record)).to.equal(false);
    await authenticate.stillStored(kept.record);
    await sql(database, 'delete from api_keys where id = ?', [gone.id]);
    await refused(gone.record);
  });
});
