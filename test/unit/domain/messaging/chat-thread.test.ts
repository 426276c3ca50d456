import { expect } from 'chai';
import { storedMessage, type ChannelMessage } from '../../../../src/domain/messaging/channel-message.js';
import { chatThreadKey, parseChatThread } from '../../../../src/domain/messaging/chat-thread.js';

describe('chat threads', () => {
  it('names a conversation by channel and chat, and by its thread too when it has one', () => {
    expect(chatThreadKey({ channel: 'chat-a', chatId: '-100123' })).to.equal('chat-a:-100123');
    expect(chatThreadKey({ channel: 'chat-b', chatId: 'C1', topicId: '1700000000.000100' })).to.equal('chat-b:C1:1700000000.000100');
  });

  it('reads a key back; a key without a channel is none', () => {
    for (const thread of [
      { channel: 'chat-a', chatId: '-100123' },
      { channel: 'chat-b', chatId: 'C1', topicId: '1700000000.000100' },
    ]) {
      expect(parseChatThread(chatThreadKey(thread))).to.deep.equal(thread);
    }
    expect(parseChatThread('web:a:b:c')).to.deep.equal({ channel: 'web', chatId: 'a:b:c' });
    expect(parseChatThread('nothing')).to.equal(undefined);
    expect(parseChatThread(':x')).to.equal(undefined);
  });
});

describe('storedMessage', () => {
  const base: ChannelMessage = {
    threadId: '1',
    text: 't',
    attachments: [],
    metadata: { userId: 'c', chatTitle: 'C', updateId: '5', messageId: '6', edited: false },
  };

  it('keeps a message with string ids as it is', () => {
    expect(storedMessage(base)).to.deep.equal(base);
  });

  it('turns the numeric ids of a task stored before ids were strings into strings', () => {
    const legacy = { ...base, metadata: { ...base.metadata, updateId: 5, messageId: 6, topicId: 7 } } as unknown as ChannelMessage;
    expect(storedMessage(legacy).metadata).to.deep.equal({ ...base.metadata, topicId: '7' });
  });
});
