import { expect } from 'chai';
import { albumMessage } from '../../../../src/domain/messaging/album-message.js';
import type { ChannelMessage } from '../../../../src/domain/messaging/channel-message.js';

const item = (messageId: string, text: string, fileId: string): ChannelMessage => ({
  threadId: '42',
  text,
  attachments: [{ kind: 'photo', fileId }],
  metadata: { userId: 'telegram', chatTitle: 'Telegram', updateId: `u${messageId}`, messageId, edited: false, albumId: '42:g' },
});

describe('albumMessage', () => {
  it("is one message: the files of every item in the order sent (by message id), the caption wherever it is, the first item's ids", () => {
    const album = albumMessage([item('10', '', 'c'), item('9', 'the caption', 'b'), item('8', '', 'a')]);
    expect(album.text).to.equal('the caption');
    expect(album.attachments.map((file) => file.fileId)).to.deep.equal(['a', 'b', 'c']);
    expect(album.metadata.messageId).to.equal('8');
    expect(album.metadata.updateId).to.equal('u8');
  });

  it('orders message ids as numbers, not as text', () => {
    expect(albumMessage([item('100', '', 'late'), item('99', '', 'early')]).attachments.map((file) => file.fileId)).to.deep.equal(['early', 'late']);
  });

  it('keeps every text, each once, and a message given twice once', () => {
    const album = albumMessage([item('1', 'one', 'a'), item('2', 'two', 'b'), item('2', 'two', 'b'), item('3', 'one', 'c')]);
    expect(album.text).to.equal('one\n\ntwo');
    expect(album.attachments.map((file) => file.fileId)).to.deep.equal(['a', 'b', 'c']);
  });

  it('leaves a lone message as it is', () => {
    const lone = item('5', 'hello', 'x');
    expect(albumMessage([lone])).to.deep.equal(lone);
  });
});
