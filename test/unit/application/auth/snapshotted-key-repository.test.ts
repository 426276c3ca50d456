import { expect } from 'chai';
import { SnapshottedKeyRepository } from '../../../../src/application/auth/snapshotted-key-repository.js';
import { InMemoryKeyDigestSnapshot } from '../../../fakes/in-memory-key-digest-snapshot.js';
import { InMemoryKeyRepository } from '../../../fakes/in-memory-key-repository.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';

const record = (n: number) => ({
  id: `60000000-0000-4000-8000-00000000000${n}`,
  name: `key ${n}`,
  keyHash: String(n).repeat(64),
  prefix: 'agw_abcd',
  createdAt: new Date(n * 1000),
  lastUsedAt: null,
});

describe('SnapshottedKeyRepository', () => {
  const make = () => {
    const snapshot = new InMemoryKeyDigestSnapshot();
    const logger = new RecordingLogger();
    return { snapshot, logger, keys: new SnapshottedKeyRepository(new InMemoryKeyRepository(), snapshot, logger) };
  };

  it('writes the snapshot of every stored key before a key added or removed is answered', async () => {
    const { snapshot, keys } = make();
    await keys.add(record(1));
    await keys.add(record(2));
    expect(snapshot.keys).to.deep.equal([1, 2].map((n) => ({ id: record(n).id, keyHash: record(n).keyHash })));
    expect(await keys.remove(record(1).id)).to.equal(true);
    expect(snapshot.keys).to.deep.equal([{ id: record(2).id, keyHash: record(2).keyHash }]);
    expect(await keys.findByHash(record(2).keyHash)).to.deep.include({ id: record(2).id });
  });

  it('takes a key out of the snapshot before it takes it out of the store: a stop between the two never leaves a revoked key in the snapshot', async () => {
    const snapshot = new InMemoryKeyDigestSnapshot();
    const inner = new InMemoryKeyRepository();
    const atRemoval: Array<readonly unknown[] | undefined> = [];
    const remove = inner.remove.bind(inner);
    inner.remove = async (id) => {
      atRemoval.push(snapshot.keys);
      return remove(id);
    };
    const keys = new SnapshottedKeyRepository(inner, snapshot, new RecordingLogger());
    await keys.add(record(1));
    await keys.add(record(2));
    expect(await keys.remove(record(1).id)).to.equal(true);
    expect(atRemoval).to.deep.equal([[{ id: record(2).id, keyHash: record(2).keyHash }]]);
    expect(snapshot.keys).to.deep.equal([{ id: record(2).id, keyHash: record(2).keyHash }]);
    // A key that is not stored changes nothing.
    expect(await keys.remove(record(3).id)).to.equal(false);
    expect(snapshot.keys).to.deep.equal([{ id: record(2).id, keyHash: record(2).keyHash }]);
  });

  it('writes the snapshot again from the store when the removal itself fails: the key, still stored, is listed again', async () => {
    const snapshot = new InMemoryKeyDigestSnapshot();
    const inner = new InMemoryKeyRepository();
    const keys = new SnapshottedKeyRepository(inner, snapshot, new RecordingLogger());
    await keys.add(record(1));
    inner.remove = () => Promise.reject(new Error('connection lost'));
    let failure: unknown;
    await keys.remove(record(1).id).catch((error: unknown) => {
      failure = error;
    });
    expect(failure).to.have.property('message', 'connection lost');
    expect(snapshot.keys).to.deep.equal([{ id: record(1).id, keyHash: record(1).keyHash }]);
  });

  it('removes the snapshot when a removal cannot be written to it: no removed key is admitted early', async () => {
    const { snapshot, keys, logger } = make();
    await keys.add(record(1));
    snapshot.failWrites = true;
    expect(await keys.remove(record(1).id)).to.equal(true);
    expect(await snapshot.read()).to.equal(undefined);
    expect(logger.entries.map((entry) => entry.level)).to.include('warn');
  });

  it('says so at error level when the snapshot can be neither written nor removed, and the removal stands', async () => {
    const { snapshot, keys, logger } = make();
    await keys.add(record(1));
    snapshot.failWrites = true;
    snapshot.failRemoves = true;
    expect(await keys.remove(record(1).id)).to.equal(true);
    expect(await keys.findByHash(record(1).keyHash)).to.equal(null);
    expect(logger.entries.map((entry) => entry.level)).to.include('error');
  });

  it('an addition whose snapshot cannot be written still stands (the new key only waits for the database at the next start)', async () => {
    const { snapshot, keys } = make();
    snapshot.failWrites = true;
    await keys.add(record(1));
    expect(await keys.findByHash(record(1).keyHash)).to.deep.include({ id: record(1).id });
    expect(snapshot.keys).to.equal(undefined);
  });

  it('refresh writes the stored keys (at start: keys may have changed while the service was down)', async () => {
    const inner = new InMemoryKeyRepository();
    await inner.add(record(3));
    const snapshot = new InMemoryKeyDigestSnapshot();
    await new SnapshottedKeyRepository(inner, snapshot, new RecordingLogger()).refresh();
    expect(snapshot.keys).to.deep.equal([{ id: record(3).id, keyHash: record(3).keyHash }]);
  });
});
