import { expect } from 'chai';
import { challengeOf, eventIdOf, parseEvent } from '../../../../../src/adapters/messaging/slack/parse-event.js';

const channel = { userId: 'slack', chatTitle: 'Slack' };

/** An Events API envelope as Slack sends it, with `changes` merged into the event. */
const envelope = (changes: Record<string, unknown> = {}) => ({
  token: 'XXYYZZ',
  team_id: 'T0001',
  api_app_id: 'A0001',
  type: 'event_callback',
  event_id: 'Ev08MFMKH6J',
  event_time: 1_767_225_600,
  authorizations: [{ team_id: 'T0001', user_id: 'U0BOT', is_bot: true }],
  event: { type: 'message', channel: 'C0DEV', channel_type: 'channel', user: 'U0ADA', text: 'What is the weather?', ts: '1767225600.000100', ...changes },
});

describe('parseEvent (Slack Events API)', () => {
  it('reads a channel message: the channel as chat, its ts as message id and as the thread the reply starts', () => {
    expect(parseEvent(envelope(), channel)).to.deep.equal({
      key: 'C0DEV:1767225600.000100',
      message: {
        threadId: 'C0DEV',
        text: 'What is the weather?',
        attachments: [],
        metadata: {
          userId: 'slack',
          chatTitle: 'Slack',
          updateId: 'Ev08MFMKH6J',
          messageId: '1767225600.000100',
          topicId: '1767225600.000100',
          from: 'U0ADA',
          edited: false,
        },
      },
    });
  });

  it('keeps a thread reply in its thread, naming the thread it replies to', () => {
    const parsed = parseEvent(envelope({ ts: '1767225700.000200', thread_ts: '1767225600.000100' }), channel)!;
    expect(parsed.message.metadata).to.deep.include({ messageId: '1767225700.000200', topicId: '1767225600.000100', replyToId: '1767225600.000100' });
  });

  it("reads an app mention without the app's leading mention, and with the same key as the message event of that message", () => {
    const mention = parseEvent(envelope({ type: 'app_mention', text: '<@U0BOT> deploy &lt;main&gt; &amp; tell me' }), channel)!;
    expect(mention.message.text).to.equal('deploy <main> & tell me');
    expect(mention.key).to.equal(parseEvent(envelope(), channel)!.key);
    // The message event of that message: the app's bot user named by the envelope, dropped too; others' mentions kept.
    expect(parseEvent(envelope({ text: '<@U0BOT> deploy' }), channel)!.message.text).to.equal('deploy');
    expect(parseEvent(envelope({ text: '<@U0ADA> deploy' }), channel)!.message.text).to.equal('<@U0ADA> deploy');
  });

  it('takes the sender name from the profile Slack sends along', () => {
    const parsed = parseEvent(envelope({ user_profile: { display_name: '', real_name: 'Ada Lovelace', name: 'ada' } }), channel)!;
    expect(parsed.message.metadata.from).to.equal('Ada Lovelace');
  });

  it('reads the files of a message with files as attachments', () => {
    const parsed = parseEvent(
      envelope({
        subtype: 'file_share',
        text: '',
        files: [
          { id: 'F01', name: 'shot.png', mimetype: 'image/png', size: 1234 },
          { id: 'F02', name: 'notes.md', mimetype: 'text/markdown', size: 55 },
          { id: 'F03', mode: 'tombstone' },
        ],
      }),
      channel,
    )!;
    expect(parsed.message.attachments).to.deep.equal([
      { kind: 'photo', fileId: 'F01', fileName: 'shot.png', mimeType: 'image/png', size: 1234 },
      { kind: 'document', fileId: 'F02', fileName: 'notes.md', mimeType: 'text/markdown', size: 55 },
    ]);
  });

  it('finds nothing to answer in bot messages, edits, deletions, other subtypes and other events', () => {
    const nothing = [
      envelope({ bot_id: 'B0BOT' }),
      envelope({ subtype: 'bot_message', bot_id: 'B0OTHER' }),
      envelope({ subtype: 'message_changed', message: { text: 'edited' } }),
      envelope({ subtype: 'message_deleted' }),
      envelope({ subtype: 'channel_join' }),
      envelope({ type: 'reaction_added' }),
      envelope({ text: '   ' }),
      envelope({ user: undefined }),
      envelope({ ts: 'not-a-ts' }),
      { ...envelope(), type: 'url_verification' },
      { ...envelope(), event: 'x' },
    ];
    for (const body of nothing) expect(parseEvent(body, channel), JSON.stringify(body)).to.equal(null);
  });

  it("finds nothing to answer in a message of the app's own bot user or of Slackbot, though it carries no bot_id nor subtype (no loop on its own messages)", () => {
    // The bot user as the envelope's `authorizations` name it: a file the app shares comes as its `file_share`, without bot_id.
    expect(parseEvent(envelope({ user: 'U0BOT', text: 'my own reply' }), channel)).to.equal(null);
    expect(parseEvent(envelope({ user: 'U0BOT', subtype: 'file_share', files: [{ id: 'F1', name: 'a.txt' }] }), channel)).to.equal(null);
    expect(parseEvent(envelope({ type: 'app_mention', user: 'U0BOT', text: '<@U0BOT> hi' }), channel)).to.equal(null);
    // A channel reminder (`/remind #channel …`) goes out as Slackbot.
    expect(parseEvent(envelope({ user: 'USLACKBOT', text: 'Reminder: deploy.' }), channel)).to.equal(null);
    // A person of the workspace is answered, also when the installing user's token (is_bot: false) is named too.
    const withUser = { ...envelope(), authorizations: [{ team_id: 'T0001', user_id: 'U0ADA', is_bot: false }] };
    expect(parseEvent(withUser, channel)?.message.text).to.equal('What is the weather?');
  });

  it('reads the event id, and a url_verification challenge', () => {
    expect(eventIdOf(envelope())).to.equal('Ev08MFMKH6J');
    for (const body of [{}, null, [], { event_id: '' }, { event_id: 7 }, { event_id: 'a b' }]) expect(eventIdOf(body)).to.equal(undefined);
    expect(challengeOf({ token: 'x', challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', type: 'url_verification' })).to.equal(
      '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
    );
    expect(challengeOf(envelope())).to.equal(undefined);
  });
});
