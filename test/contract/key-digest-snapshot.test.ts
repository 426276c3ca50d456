import { expect } from 'chai';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileKeyDigestSnapshot } from '../../src/adapters/intake/file-key-digest-snapshot.js';
import { InMemoryKeyDigestSnapshot } from '../fakes/in-memory-key-digest-snapshot.js';
import { tempDir } from '../support/gateway-process.js';
import { describeKeyDigestSnapshotContract } from './key-digest-snapshot.contract.js';

describeKeyDigestSnapshotContract('in-memory fake', async () => {
  const snapshot = new InMemoryKeyDigestSnapshot();
  return { snapshot, reopen: () => snapshot };
});

describeKeyDigestSnapshotContract('a JSON file', async () => {
  const file = join(await tempDir('key-digests'), 'intake', 'keys.json');
  return { snapshot: new FileKeyDigestSnapshot(file), reopen: () => new FileKeyDigestSnapshot(file) };
});

describe('FileKeyDigestSnapshot', () => {
  it('reads a damaged, foreign or other-version file as no copy at all', async () => {
    const file = join(await tempDir('key-digests-bad'), 'keys.json');
    const snapshot = new FileKeyDigestSnapshot(file);
    for (const text of [
      '{"v":1,"keys":[{"id":"k","keyHash":"a',
      '[]',
      'null',
      '{"v":2,"keys":[]}',
      '{"v":1,"keys":[{"id":"k","keyHash":"NOT-A-DIGEST"}]}',
      `{"v":1,"keys":[{"id":"","keyHash":"${'a'.repeat(64)}"}]}`,
      `{"v":1,"keys":[{"id":"k","keyHash":"${'a'.repeat(64)}"},7]}`,
    ]) {
      await writeFile(file, text);
      expect(await snapshot.read(), text).to.equal(undefined);
    }
  });

  it('is owner-only', async () => {
    const file = join(await tempDir('key-digests-mode'), 'intake', 'keys.json');
    await new FileKeyDigestSnapshot(file).write([{ id: 'k', keyHash: 'a'.repeat(64) }]);
    expect((await stat(file)).mode & 0o777).to.equal(0o600);
    expect((await stat(join(file, '..'))).mode & 0o777).to.equal(0o700);
  });
});
