import { expect } from 'chai';
import { AuthenticateApiKey, LAST_USED_RESOLUTION_MS } from '../../../../src/application/auth/authenticate-api-key.js';
import { CreateApiKey } from '../../../../src/application/auth/create-api-key.js';
import { NodeApiKeyCrypto } from '../../../../src/adapters/crypto/node-api-key-crypto.js';
import { DomainError } from '../../../../src/domain/errors/domain-error.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryKeyRepository } from '../../../fakes/in-memory-key-repository.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';

const rejects = async (promise: Promise<unknown>): Promise<DomainError> => {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a rejection');
};

describe('AuthenticateApiKey', () => {
  let keys: InMemoryKeyRepository;
  let clock: FixedClock;
  let authenticate: AuthenticateApiKey;
  let key: string;
  let id: string;

  beforeEach(async () => {
    keys = new InMemoryKeyRepository();
    clock = new FixedClock();
    const crypto = new NodeApiKeyCrypto();
    authenticate = new AuthenticateApiKey(keys, crypto, clock, new RecordingLogger());
    ({ key, id } = await new CreateApiKey(keys, crypto, new SequentialIds(), clock).execute({ name: 'ci' }));
  });

  it('accepts a stored key and returns its summary without the digest', async () => {
    const summary = await authenticate.execute(key);
    expect(summary).to.include({ id, name: 'ci', prefix: key.slice(0, 8) });
    expect(summary).not.to.have.property('keyHash');
  });

  it('answers a key its repository knows from memory (known), the same as execute, and recording its use alike', async () => {
    const touches = keys.touches;
    const { lastUsedAt: _fromMemory, ...known } = authenticate.known(key)!;
    const { lastUsedAt: _looked, ...looked } = await authenticate.execute(key);
    expect(known).to.deep.equal(looked);
    expect(known).to.include({ id, name: 'ci' });
    expect(keys.touches, 'one use recorded per resolution period').to.equal(touches + 1);
  });

  it('leaves a key its repository does not know to execute (known is undefined), and refuses a malformed one at once', async () => {
    const unknown = `agw_${'C'.repeat(43)}`;
    const forgetful = new AuthenticateApiKey(
      Object.assign(Object.create(keys), { knownByHash: () => undefined }),
      new NodeApiKeyCrypto(),
      clock,
      new RecordingLogger(),
    );
    expect(forgetful.known(key)).to.equal(undefined);
    expect(authenticate.known(unknown)).to.equal(undefined);
    expect(() => authenticate.known('not a key')).to.throw(DomainError, 'Unauthorized');
  });

  for (const [label, value] of [
    ['a missing header', undefined],
    ['an empty header', ''],
  ] as const) {
    it(`refuses ${label} as unauthorized`, async () => {
      const error = await rejects(authenticate.execute(value));
      expect(error.code).to.equal('unauthorized');
      expect(error.message).to.equal('Unauthorized');
    });
  }

  it('refuses a prefix of the key, the key plus a character, and another key of the same length', async () => {
    const other = `agw_${'B'.repeat(43)}`;
    for (const value of [key.slice(0, -1), key.slice(0, 10), `${key}x`, other, ` ${key}`]) {
      const error = await rejects(authenticate.execute(value));
      expect(error.code, value).to.equal('unauthorized');
    }
  });

  it('refuses a key at once after its record is removed', async () => {
    await authenticate.execute(key);
    await keys.remove(id);
    expect((await rejects(authenticate.execute(key))).code).to.equal('unauthorized');
  });

  it('records the last use at most once per resolution window', async () => {
    await authenticate.execute(key);
    await authenticate.execute(key);
    expect(keys.touches).to.equal(1);
    clock.advance(LAST_USED_RESOLUTION_MS + 1);
    await authenticate.execute(key);
    expect(keys.touches).to.equal(2);
    expect((await keys.list())[0].lastUsedAt).to.deep.equal(clock.now());
  });
});
