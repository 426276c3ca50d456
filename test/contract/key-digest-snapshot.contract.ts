import { expect } from 'chai';
import type { KeyDigestSnapshot } from '../../src/ports/key-digest-snapshot.js';

const A = { id: '60000000-0000-4000-8000-00000000000a', keyHash: 'a'.repeat(64) };
const B = { id: '60000000-0000-4000-8000-00000000000b', keyHash: '0123456789abcdef'.repeat(4) };

/** The behaviour every KeyDigestSnapshot adapter must have; `reopen` gives the same snapshot as a later process sees it. */
export const describeKeyDigestSnapshotContract = (name: string, open: () => Promise<{ snapshot: KeyDigestSnapshot; reopen(): KeyDigestSnapshot }>): void => {
  describe(`KeyDigestSnapshot contract: ${name}`, () => {
    it('reads as no copy before the first write and after remove', async () => {
      const { snapshot } = await open();
      expect(await snapshot.read()).to.equal(undefined);
      await snapshot.write([A]);
      await snapshot.remove();
      expect(await snapshot.read()).to.equal(undefined);
      await snapshot.remove();
    });

    it('gives the keys written last, digest to id, to a later process too', async () => {
      const { snapshot, reopen } = await open();
      await snapshot.write([A, B]);
      await snapshot.write([B]);
      expect(await snapshot.read()).to.deep.equal(new Map([[B.keyHash, B.id]]));
      expect(await reopen().read()).to.deep.equal(new Map([[B.keyHash, B.id]]));
    });

    it('keeps the last of writes asked at once', async () => {
      const { snapshot } = await open();
      await Promise.all([snapshot.write([A]), snapshot.write([A, B]), snapshot.write([B])]);
      expect(await snapshot.read()).to.deep.equal(new Map([[B.keyHash, B.id]]));
    });

    it('an empty list is a copy with no key (not no copy)', async () => {
      const { snapshot } = await open();
      await snapshot.write([]);
      expect(await snapshot.read()).to.deep.equal(new Map());
    });
  });
};
