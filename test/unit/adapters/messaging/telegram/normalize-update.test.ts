import { expect } from 'chai';
import { normalizeUpdate, updateIdOf } from '../../../../../src/adapters/messaging/telegram/normalize-update.js';

const channel = { userId: 'messaging', chatTitle: 'Messaging' };

const alice = { id: 111222333, is_bot: false, first_name: 'Alice', last_name: 'Liddell', username: 'alice', language_code: 'en' };
const privateChat = { id: 111222333, first_name: 'Alice', last_name: 'Liddell', username: 'alice', type: 'private' };
const group = { id: -1001234567890, title: 'Wonderland Devs', type: 'supergroup' };
const newsChannel = { id: -1009876543210, title: 'Wonderland News', username: 'wonderland_news', type: 'channel' };

/** A private-chat text message as Telegram sends it, with `changes` merged into the message. */
const textUpdate = (changes: Record<string, unknown> = {}) => ({
  update_id: 804312001,
  message: {
    message_id: 42,
    from: alice,
    chat: privateChat,
    date: 1767225600,
    text: 'What is the weather in Paris?',
    ...changes,
  },
});

/** A private-chat message carrying only media, with `media` merged into the message. */
const mediaUpdate = (media: Record<string, unknown>) => ({
  update_id: 804312002,
  message: { message_id: 43, from: alice, chat: privateChat, date: 1767225660, ...media },
});

describe('normalizeUpdate', () => {
  describe('text messages', () => {
    it('turns a private text message into a channel message with the chat id as thread id', () => {
      expect(normalizeUpdate(textUpdate({ entities: [{ offset: 0, length: 4, type: 'bold' }] }), channel)).to.deep.equal({
        threadId: '111222333',
        text: 'What is the weather in Paris?',
        attachments: [],
        metadata: {
          userId: 'messaging',
          chatTitle: 'Messaging',
          updateId: '804312001',
          messageId: '42',
          from: 'Alice Liddell',
          edited: false,
        },
      });
    });

    it('takes userId and chatTitle from the channel it is given', () => {
      const message = normalizeUpdate(textUpdate(), { userId: 'telegram', chatTitle: 'Telegram' });
      expect(message?.metadata.userId).to.equal('telegram');
      expect(message?.metadata.chatTitle).to.equal('Telegram');
    });

    it('keeps a negative group chat id as a string thread id', () => {
      const message = normalizeUpdate(
        { update_id: 804312003, message: { message_id: 7, from: alice, chat: group, date: 1767225700, text: '/ask@wonder_bot status?' } },
        channel,
      );
      expect(message?.threadId).to.equal('-1001234567890');
      expect(message?.text).to.equal('/ask@wonder_bot status?');
    });

    it('names the sender by first name alone when there is no last name', () => {
      const from = { id: 5, is_bot: false, first_name: 'Bob' };
      expect(normalizeUpdate(textUpdate({ from }), channel)?.metadata.from).to.equal('Bob');
    });

    it('names the sender by username when there is no usable first name', () => {
      const from = { id: 5, is_bot: false, first_name: '  ', username: 'bob_the_builder' };
      expect(normalizeUpdate(textUpdate({ from }), channel)?.metadata.from).to.equal('bob_the_builder');
    });

    it('leaves from out when the sender has no name at all', () => {
      const message = normalizeUpdate(textUpdate({ from: { id: 5, is_bot: false } }), channel);
      expect(message?.metadata).to.not.have.property('from');
    });

    it('keeps the text as sent, including surrounding spaces and line breaks', () => {
      expect(normalizeUpdate(textUpdate({ text: '  line one\nline two ' }), channel)?.text).to.equal('  line one\nline two ');
    });
  });

  describe('edits and channel posts', () => {
    it('marks an edited_message as edited', () => {
      const update = { update_id: 804312010, edited_message: { ...textUpdate().message, edit_date: 1767225999, text: 'What is the weather in Lyon?' } };
      const message = normalizeUpdate(update, channel);
      expect(message?.text).to.equal('What is the weather in Lyon?');
      expect(message?.metadata.edited).to.equal(true);
      expect(message?.metadata.messageId).to.equal('42');
    });

    it('treats a channel_post as a message of the channel chat, from the channel title', () => {
      const update = {
        update_id: 804312011,
        channel_post: { message_id: 900, sender_chat: newsChannel, chat: newsChannel, date: 1767226000, text: 'Release 2.0 is out' },
      };
      expect(normalizeUpdate(update, channel)).to.deep.equal({
        threadId: '-1009876543210',
        text: 'Release 2.0 is out',
        attachments: [],
        metadata: { userId: 'messaging', chatTitle: 'Messaging', updateId: '804312011', messageId: '900', from: 'Wonderland News', edited: false },
      });
    });

    it('names a channel post by the chat title even without sender_chat', () => {
      const update = { update_id: 804312012, channel_post: { message_id: 901, chat: newsChannel, date: 1767226001, text: 'Hello' } };
      expect(normalizeUpdate(update, channel)?.metadata.from).to.equal('Wonderland News');
    });

    it("answers nothing of a channel post's automatic forward into the linked discussion group (the bot's own posts are copied there too)", () => {
      const discussion = { id: -1001111111111, title: 'Wonderland News chat', type: 'supergroup' };
      const copy = (messageId: number, text: string) => ({
        update_id: 804312014 + messageId,
        message: {
          message_id: messageId,
          from: { id: 777000, is_bot: false, first_name: 'Telegram' },
          sender_chat: newsChannel,
          chat: discussion,
          date: 1767226001,
          is_automatic_forward: true,
          forward_origin: { type: 'channel', chat: newsChannel, message_id: 900, date: 1767226000 },
          text,
        },
      });
      expect(normalizeUpdate(copy(1, 'Release 2.0 is out'), channel)).to.equal(null);
      expect(normalizeUpdate(copy(2, 'Started job 1234.'), channel)).to.equal(null);
      // A member's message in the group, written as the channel (sender_chat), is still answered.
      const asChannel = copy(3, 'create a job that bumps the version');
      delete (asChannel.message as { is_automatic_forward?: boolean }).is_automatic_forward;
      expect(normalizeUpdate(asChannel, channel)?.text).to.equal('create a job that bumps the version');
    });

    it('marks an edited_channel_post as edited', () => {
      const update = {
        update_id: 804312013,
        edited_channel_post: {
          message_id: 900,
          sender_chat: newsChannel,
          chat: newsChannel,
          date: 1767226000,
          edit_date: 1767226100,
          text: 'Release 2.0.1 is out',
        },
      };
      const message = normalizeUpdate(update, channel);
      expect(message?.text).to.equal('Release 2.0.1 is out');
      expect(message?.metadata.edited).to.equal(true);
    });
  });

  describe('forum topics', () => {
    it('sets topicId from message_thread_id for a message in a forum topic', () => {
      const forum = { ...group, is_forum: true };
      const update = textUpdate({ chat: forum, message_thread_id: 17, is_topic_message: true });
      expect(normalizeUpdate(update, channel)?.metadata.topicId).to.equal('17');
    });

    it('leaves topicId out for a reply thread in an ordinary supergroup, which Telegram cannot send to', () => {
      const update = textUpdate({ chat: group, message_thread_id: 40, reply_to_message: { message_id: 40, chat: group, date: 1767225000, text: 'root' } });
      expect(normalizeUpdate(update, channel)?.metadata).to.not.have.property('topicId');
    });

    it('gives the id of the message a reply replies to, but not the first message of the forum topic a message is in', () => {
      const reply = textUpdate({ chat: group, reply_to_message: { message_id: 40, chat: group, date: 1767225000, text: 'root' } });
      expect(normalizeUpdate(reply, channel)?.metadata.replyToId).to.equal('40');
      const forum = { ...group, is_forum: true };
      const inTopic = textUpdate({
        chat: forum,
        message_thread_id: 17,
        is_topic_message: true,
        reply_to_message: { message_id: 17, chat: forum, date: 1767225000, forum_topic_created: { name: 'Ops', icon_color: 1 } },
      });
      expect(normalizeUpdate(inTopic, channel)?.metadata).to.not.have.property('replyToId');
      expect(normalizeUpdate(textUpdate(), channel)?.metadata).to.not.have.property('replyToId');
    });

    it("reads an update's update_id only when it is a whole, non-negative number", () => {
      expect(updateIdOf({ update_id: 7, my_chat_member: {} })).to.equal(7);
      for (const bad of [{}, { update_id: 'x' }, { update_id: -1 }, { update_id: 1.5 }, [], 'text', null, undefined])
        expect(updateIdOf(bad), JSON.stringify(bad)).to.equal(undefined);
    });

    it('leaves topicId out for a message without a thread', () => {
      expect(normalizeUpdate(textUpdate(), channel)?.metadata).to.not.have.property('topicId');
    });
  });

  describe('attachments', () => {
    const photo = [
      { file_id: 'AgACAgQAAxkBAAIBs-small', file_unique_id: 'AQADs1', width: 90, height: 67, file_size: 1342 },
      { file_id: 'AgACAgQAAxkBAAIBs-medium', file_unique_id: 'AQADs2', width: 320, height: 240, file_size: 17860 },
      { file_id: 'AgACAgQAAxkBAAIBs-large', file_unique_id: 'AQADs3', width: 1280, height: 960, file_size: 130554 },
    ];

    it('keeps only the largest (last) size of a photo, as a JPEG, with its caption as text', () => {
      const message = normalizeUpdate(mediaUpdate({ photo, caption: 'What is this plant?', caption_entities: [] }), channel);
      expect(message?.text).to.equal('What is this plant?');
      expect(message?.attachments).to.deep.equal([{ kind: 'photo', fileId: 'AgACAgQAAxkBAAIBs-large', mimeType: 'image/jpeg', size: 130554 }]);
    });

    it('names the album of a photo or file sent in one (media_group_id) as <chat id>:<group>, whichever item carries the caption', () => {
      const withCaption = normalizeUpdate(mediaUpdate({ photo, media_group_id: '13573217400123', caption: 'Which is ripe?' }), channel);
      const without = normalizeUpdate(
        { update_id: 804312003, message: { message_id: 44, from: alice, chat: privateChat, date: 1767225660, photo, media_group_id: '13573217400123' } },
        channel,
      );
      expect(withCaption?.metadata.albumId).to.equal('111222333:13573217400123');
      expect(without?.metadata.albumId).to.equal('111222333:13573217400123');
      expect(without?.text).to.equal('');
      expect(without?.attachments).to.have.length(1);
      const inGroup = normalizeUpdate(
        { update_id: 804312004, message: { message_id: 7, from: alice, chat: group, date: 1767225660, photo, media_group_id: '13573217400123' } },
        channel,
      );
      expect(inGroup?.metadata.albumId).to.equal('-1001234567890:13573217400123');
      expect(normalizeUpdate(mediaUpdate({ photo }), channel)?.metadata).to.not.have.property('albumId');
      expect(normalizeUpdate(mediaUpdate({ photo, media_group_id: '' }), channel)?.metadata).to.not.have.property('albumId');
    });

    it('keeps a photo sent without a caption, with empty text', () => {
      const message = normalizeUpdate(mediaUpdate({ photo }), channel);
      expect(message?.text).to.equal('');
      expect(message?.attachments.map((a) => a.fileId)).to.deep.equal(['AgACAgQAAxkBAAIBs-large']);
    });

    it('takes the largest usable size when the last photo size is malformed', () => {
      const message = normalizeUpdate(mediaUpdate({ photo: [photo[0], photo[1], { width: 1280 }] }), channel);
      expect(message?.attachments.map((a) => a.fileId)).to.deep.equal(['AgACAgQAAxkBAAIBs-medium']);
    });

    it('maps a document with its file name, MIME type and size', () => {
      const document = { file_name: 'report.pdf', mime_type: 'application/pdf', file_id: 'BQACAgQAAxkBAAIBtGd', file_unique_id: 'AgADtG', file_size: 48213 };
      expect(normalizeUpdate(mediaUpdate({ document, caption: 'Summarise this' }), channel)?.attachments).to.deep.equal([
        { kind: 'document', fileId: 'BQACAgQAAxkBAAIBtGd', fileName: 'report.pdf', mimeType: 'application/pdf', size: 48213 },
      ]);
    });

    it('maps a voice note with its MIME type and size', () => {
      const voice = { duration: 3, mime_type: 'audio/ogg', file_id: 'AwACAgQAAxkBAAIBtWd', file_unique_id: 'AgADtW', file_size: 10243 };
      expect(normalizeUpdate(mediaUpdate({ voice }), channel)?.attachments).to.deep.equal([
        { kind: 'voice', fileId: 'AwACAgQAAxkBAAIBtWd', mimeType: 'audio/ogg', size: 10243 },
      ]);
    });

    it('maps an audio file by its file name, or by its title when it has none', () => {
      const audio = {
        duration: 184,
        performer: 'Band',
        title: 'Song',
        mime_type: 'audio/mpeg',
        file_id: 'CQACAgQAAxkBAAIBtm',
        file_unique_id: 'AgADtm',
        file_size: 2945612,
      };
      expect(normalizeUpdate(mediaUpdate({ audio: { ...audio, file_name: 'song.mp3' } }), channel)?.attachments).to.deep.equal([
        { kind: 'audio', fileId: 'CQACAgQAAxkBAAIBtm', fileName: 'song.mp3', mimeType: 'audio/mpeg', size: 2945612 },
      ]);
      expect(normalizeUpdate(mediaUpdate({ audio }), channel)?.attachments).to.deep.equal([
        { kind: 'audio', fileId: 'CQACAgQAAxkBAAIBtm', fileName: 'Song', mimeType: 'audio/mpeg', size: 2945612 },
      ]);
    });

    it('maps a video and an animation with their file names and MIME types', () => {
      const video = {
        duration: 12,
        width: 1280,
        height: 720,
        file_name: 'clip.mp4',
        mime_type: 'video/mp4',
        file_id: 'BAACAgQAAxkBAAIBt2',
        file_unique_id: 'AgADt2',
        file_size: 1048576,
      };
      const animation = {
        duration: 2,
        width: 320,
        height: 240,
        file_name: 'cat.gif.mp4',
        mime_type: 'video/mp4',
        file_id: 'CgACAgQAAxkBAAIBuG',
        file_unique_id: 'AgADuG',
        file_size: 88123,
      };
      expect(normalizeUpdate(mediaUpdate({ video }), channel)?.attachments).to.deep.equal([
        { kind: 'video', fileId: 'BAACAgQAAxkBAAIBt2', fileName: 'clip.mp4', mimeType: 'video/mp4', size: 1048576 },
      ]);
      // Telegram sends an animation with a document field too, for older clients: both are kept.
      expect(normalizeUpdate(mediaUpdate({ animation, document: animation }), channel)?.attachments).to.deep.equal([
        { kind: 'document', fileId: 'CgACAgQAAxkBAAIBuG', fileName: 'cat.gif.mp4', mimeType: 'video/mp4', size: 88123 },
        { kind: 'animation', fileId: 'CgACAgQAAxkBAAIBuG', fileName: 'cat.gif.mp4', mimeType: 'video/mp4', size: 88123 },
      ]);
    });

    it('maps stickers with the MIME type their format implies', () => {
      const sticker = {
        width: 512,
        height: 512,
        emoji: '😀',
        set_name: 'Animals',
        type: 'regular',
        is_animated: false,
        is_video: false,
        file_id: 'CAACAgIAAxkBAAIBuW',
        file_unique_id: 'AgADuW',
        file_size: 23040,
      };
      const kinds = [sticker, { ...sticker, is_animated: true }, { ...sticker, is_video: true }].map(
        (s) => normalizeUpdate(mediaUpdate({ sticker: s }), channel)?.attachments[0],
      );
      expect(kinds).to.deep.equal([
        { kind: 'sticker', fileId: 'CAACAgIAAxkBAAIBuW', mimeType: 'image/webp', size: 23040 },
        { kind: 'sticker', fileId: 'CAACAgIAAxkBAAIBuW', mimeType: 'application/x-tgsticker', size: 23040 },
        { kind: 'sticker', fileId: 'CAACAgIAAxkBAAIBuW', mimeType: 'video/webm', size: 23040 },
      ]);
    });

    it('maps a video note as an MP4 video', () => {
      const videoNote = { duration: 5, length: 240, file_id: 'DQACAgQAAxkBAAIBum', file_unique_id: 'AgADum', file_size: 301234 };
      expect(normalizeUpdate(mediaUpdate({ video_note: videoNote }), channel)?.attachments).to.deep.equal([
        { kind: 'video_note', fileId: 'DQACAgQAAxkBAAIBum', mimeType: 'video/mp4', size: 301234 },
      ]);
    });

    it('leaves out the size and other fields Telegram did not send', () => {
      const document = { file_id: 'BQACAgQAAxkBAAIBu2', file_unique_id: 'AgADu2' };
      expect(normalizeUpdate(mediaUpdate({ document }), channel)?.attachments).to.deep.equal([{ kind: 'document', fileId: 'BQACAgQAAxkBAAIBu2' }]);
    });

    it('skips a file without a file_id but keeps the message when it has text', () => {
      const message = normalizeUpdate(mediaUpdate({ document: { file_name: 'x.txt' }, caption: 'see attached' }), channel);
      expect(message?.text).to.equal('see attached');
      expect(message?.attachments).to.deep.equal([]);
    });

    it('ignores a size that is not a non-negative integer', () => {
      const document = { file_id: 'BQACAgQAAxkBAAIBu3', file_unique_id: 'AgADu3', file_size: '100' };
      expect(normalizeUpdate(mediaUpdate({ document }), channel)?.attachments).to.deep.equal([{ kind: 'document', fileId: 'BQACAgQAAxkBAAIBu3' }]);
    });
  });

  describe('updates with nothing to answer', () => {
    const nothing: Array<[string, unknown]> = [
      [
        'a callback_query',
        {
          update_id: 804312100,
          callback_query: { id: '4382bfdwdsb323b2d9', from: alice, chat_instance: '-8532', data: 'yes', message: textUpdate().message },
        },
      ],
      [
        'a my_chat_member change',
        {
          update_id: 804312101,
          my_chat_member: {
            chat: group,
            from: alice,
            date: 1767226200,
            old_chat_member: { user: { id: 999, is_bot: true, first_name: 'Wonder Bot', username: 'wonder_bot' }, status: 'left' },
            new_chat_member: { user: { id: 999, is_bot: true, first_name: 'Wonder Bot', username: 'wonder_bot' }, status: 'member' },
          },
        },
      ],
      ['a chat_member change', { update_id: 804312102, chat_member: { chat: group, from: alice, date: 1767226201 } }],
      [
        'a message_reaction',
        {
          update_id: 804312103,
          message_reaction: { chat: group, message_id: 7, user: alice, date: 1767226202, old_reaction: [], new_reaction: [{ type: 'emoji', emoji: '👍' }] },
        },
      ],
      ['a message from a bot', textUpdate({ from: { id: 777, is_bot: true, first_name: 'Other Bot', username: 'other_bot' } })],
      [
        'a new_chat_members service message',
        {
          update_id: 804312104,
          message: { message_id: 50, from: alice, chat: group, date: 1767226203, new_chat_members: [alice], new_chat_participant: alice },
        },
      ],
      [
        'a left_chat_member service message',
        { update_id: 804312105, message: { message_id: 51, from: alice, chat: group, date: 1767226204, left_chat_member: alice } },
      ],
      [
        'a pinned_message service message (the pinned text is not this message’s)',
        { update_id: 804312106, message: { message_id: 52, from: alice, chat: group, date: 1767226205, pinned_message: textUpdate().message } },
      ],
      [
        'a location without text or file',
        { update_id: 804312107, message: { message_id: 53, from: alice, chat: privateChat, date: 1767226206, location: { latitude: 48.85, longitude: 2.35 } } },
      ],
      ['a message with only blank text', textUpdate({ text: ' \n ' })],
      ['a message with an empty caption and no file', mediaUpdate({ caption: '' })],
      ['an update without a message', { update_id: 804312108 }],
    ];
    for (const [what, update] of nothing) {
      it(`returns null for ${what}`, () => {
        expect(normalizeUpdate(update, channel)).to.equal(null);
      });
    }
  });

  describe('messages written on behalf of a chat', () => {
    it('keeps an anonymous admin’s message, whose from is a placeholder bot, and names the group', () => {
      const update = textUpdate({
        from: { id: 1087968824, is_bot: true, first_name: 'Group', username: 'GroupAnonymousBot' },
        sender_chat: group,
        chat: group,
        text: 'Deploy status?',
      });
      const message = normalizeUpdate(update, channel);
      expect(message?.text).to.equal('Deploy status?');
      expect(message?.metadata.from).to.equal('Wonderland Devs');
    });
  });

  describe('malformed updates', () => {
    const malformed: Array<[string, unknown]> = [
      ['null', null],
      ['a string', 'update'],
      ['an array', [textUpdate()]],
      ['a missing update_id', { message: textUpdate().message }],
      ['a string update_id', { ...textUpdate(), update_id: '804312001' }],
      ['a fractional update_id', { ...textUpdate(), update_id: 1.5 }],
      ['a message that is not an object', { update_id: 1, message: 'hello' }],
      ['a null message', { update_id: 1, message: null }],
      ['a missing chat', textUpdate({ chat: undefined })],
      ['a chat without id', textUpdate({ chat: { type: 'private', first_name: 'Alice' } })],
      ['a string chat id', textUpdate({ chat: { ...privateChat, id: '111222333' } })],
      ['a missing message_id', textUpdate({ message_id: undefined })],
      ['a text that is not a string', textUpdate({ text: 42 })],
      ['a photo that is not an array', mediaUpdate({ photo: { file_id: 'x' } })],
    ];
    for (const [what, update] of malformed) {
      it(`returns null for ${what}`, () => {
        expect(normalizeUpdate(update, channel)).to.equal(null);
      });
    }

    it('never throws, even on an object whose properties throw when read', () => {
      const hostile = new Proxy(
        {},
        {
          has: () => true,
          get: () => {
            throw new Error('boom');
          },
          getOwnPropertyDescriptor: () => ({ configurable: true, enumerable: true, value: 1 }),
        },
      );
      expect(normalizeUpdate(hostile, channel)).to.equal(null);
      expect(normalizeUpdate({ update_id: 1, message: hostile }, channel)).to.equal(null);
    });

    it('does not pick up fields from the prototype chain', () => {
      const update = Object.create({ update_id: 1, message: textUpdate().message }) as object;
      expect(normalizeUpdate(update, channel)).to.equal(null);
    });
  });
});
