import { expect } from 'chai';
import { AuthenticateApiKey, LAST_USED_RESOLUTION_MS } from '../../../../src/application/auth/authenticate-api-key.js';
import { CreateApiKey } from '../../../../src/application/auth/create-api-key.js';
import { NodeApiKeyCrypto } from '../../../../src/adapters/crypto/node-api-key-crypto.js';
import { DomainError } from '../../../../src/domain/errors/domain-error.js';
import type { KeyRepository } from '../../../../src/ports/key-repository.js';
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

  describe('checking an accepted key again (stillAccepted, stillStored)', () => {
    /** NodeApiKeyCrypto counting its digests and comparisons. */
    const counting = () => {
      const real = new NodeApiKeyCrypto();
      const counts = { digest: 0, equal: 0 };
      const crypto = Object.assign(Object.create(real) as NodeApiKeyCrypto, {
        digest: (value: string) => (counts.digest++, real.digest(value)),
        equal: (a: string, b: string) => (counts.equal++, real.equal(a, b)),
      });
      return { crypto, counts };
    };

    it('tells a key still stored from memory, computing no digest and comparing nothing again', async () => {
      const { crypto, counts } = counting();
      const checking = new AuthenticateApiKey(keys, crypto, clock, new RecordingLogger());
      const record = checking.acceptKnown(key)!;
      expect(record).to.include({ id });
      expect(await checking.accept(key)).to.include({ id });
      const before = { ...counts };
      expect(checking.stillAccepted(record)).to.equal(true);
      await checking.stillStored(record);
      expect(counts).to.deep.equal(before);
    });

    it('refuses a key removed since it was accepted: memory no longer knows it, and the store refuses it', async () => {
      const record = (await authenticate.accept(key))!;
      await keys.remove(id);
      expect(authenticate.stillAccepted(record)).to.equal(false);
      expect((await rejects(authenticate.stillStored(record))).code).to.equal('unauthorized');
    });

    it('asks the store when memory cannot tell (cache cleared, notifications down), accepting a key still stored', async () => {
      const record = authenticate.acceptKnown(key)!;
      const store: KeyRepository = {
        add: (added) => keys.add(added),
        findByHash: (hash) => keys.findByHash(hash),
        knownByHash: () => undefined,
        list: () => keys.list(),
        remove: (removed) => keys.remove(removed),
        touch: (touched, at) => keys.touch(touched, at),
      };
      const forgetful = new AuthenticateApiKey(store, new NodeApiKeyCrypto(), clock, new RecordingLogger());
      expect(forgetful.stillAccepted(record)).to.equal(false);
      await forgetful.stillStored(record);
    });

    it('refuses a record whose digest now belongs to another key', async () => {
      const record = authenticate.acceptKnown(key)!;
      await keys.remove(id);
      await keys.add({ ...record, id: '20000000-0000-4000-8000-000000000001' });
      expect(authenticate.stillAccepted(record)).to.equal(false);
      expect((await rejects(authenticate.stillStored(record))).code).to.equal('unauthorized');
    });

    it('records no use', async () => {
      const record = await authenticate.accept(key);
      const touches = keys.touches;
      clock.advance(LAST_USED_RESOLUTION_MS + 1);
      authenticate.stillAccepted(record);
      await authenticate.stillStored(record);
      expect(keys.touches).to.equal(touches);
    });
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
