import { expect } from 'chai';
import type { ChannelMessage } from '../../src/domain/messaging/channel-message.js';
import type { AlbumStore } from '../../src/ports/album-store.js';

export interface AlbumStoreHarness {
  readonly store: AlbumStore;
  /** Another store on the same storage (another replica), when the adapter has one. */
  readonly replica?: AlbumStore;
  /** Forgets every album between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const photo = (n: number, text = ''): ChannelMessage => ({
  threadId: '-1001234567890',
  text,
  attachments: [{ kind: 'photo', fileId: `AgACAgQ-${n}`, mimeType: 'image/jpeg', size: 1000 + n }],
  metadata: {
    userId: 'telegram',
    chatTitle: 'Telegram',
    updateId: String(800 + n),
    messageId: String(40 + n),
    topicId: '7',
    from: 'Alice',
    edited: false,
    albumId: '-1001234567890:13573217400123',
  },
});

const ALBUM = 'telegram:-1001234567890:13573217400123';
const at = (ms: number) => new Date(Date.UTC(2026, 10, 30, 10, 0, 0, ms));

/** The behaviour every AlbumStore adapter must have. */
export const describeAlbumStoreContract = (name: string, open: () => Promise<AlbumStoreHarness>): void => {
  describe(`AlbumStore contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: AlbumStoreHarness;
    let store: AlbumStore;
    before(async () => {
      harness = await open();
    });
    beforeEach(async () => {
      await harness.reset();
      store = harness.store;
    });
    after(async () => harness?.close());

    it('gives back every message of an album as stored, in the order they arrived, with the time the last one arrived', async () => {
      await store.add(ALBUM, '42', photo(2, 'the caption, with ünïcode 🎉 and "quotes"'), at(300));
      await store.add(ALBUM, '41', photo(1), at(100));
      await store.add(ALBUM, '43', photo(3), at(500));
      const album = await store.read(ALBUM);
      expect(album.items).to.deep.equal([photo(1), photo(2, 'the caption, with ünïcode 🎉 and "quotes"'), photo(3)]);
      expect(album.lastArrivedAt?.getTime()).to.equal(at(500).getTime());
    });

    it('keeps a message stored again (a redelivery) once, as first stored, its arrival time too', async () => {
      await store.add(ALBUM, '41', photo(1, 'first'), at(100));
      await store.add(ALBUM, '41', photo(1, 'again'), at(900));
      const album = await store.read(ALBUM);
      expect(album.items.map((item) => item.text)).to.deep.equal(['first']);
      expect(album.lastArrivedAt?.getTime()).to.equal(at(100).getTime());
    });

    it('keeps albums apart, and answers an album with nothing stored with no messages and no time', async () => {
      await store.add(ALBUM, '41', photo(1), at(100));
      await store.add('telegram:42:13573217400123', '41', photo(9), at(200));
      expect((await store.read(ALBUM)).items.map((item) => item.attachments[0].fileId)).to.deep.equal(['AgACAgQ-1']);
      expect(await store.read('telegram:never')).to.deep.equal({ items: [], lastArrivedAt: undefined });
    });

    it('sees messages another replica stored', async () => {
      const other = harness.replica ?? store;
      await other.add(ALBUM, '41', photo(1), at(100));
      await store.add(ALBUM, '42', photo(2), at(200));
      expect((await other.read(ALBUM)).items).to.have.length(2);
      expect((await store.read(ALBUM)).items).to.have.length(2);
    });

    it('stores one message once when it is stored many times at once', async () => {
      await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? store : (harness.replica ?? store)).add(ALBUM, '41', photo(1), at(100))));
      expect((await store.read(ALBUM)).items).to.have.length(1);
    });

    it('forgets messages stored before a cutoff in bounded batches, oldest first, keeping later ones', async () => {
      await store.add(ALBUM, '41', photo(1), at(100));
      await store.add(ALBUM, '42', photo(2), at(200));
      await store.add(ALBUM, '43', photo(3), at(900));
      expect(await store.deleteOlderThan(at(500), 1)).to.equal(1);
      expect((await store.read(ALBUM)).items.map((item) => item.metadata.messageId)).to.deep.equal(['42', '43']);
      expect(await store.deleteOlderThan(at(500), 10)).to.equal(1);
      expect(await store.deleteOlderThan(at(500), 10)).to.equal(0);
      expect((await store.read(ALBUM)).items.map((item) => item.metadata.messageId)).to.deep.equal(['43']);
    });
  });
};
