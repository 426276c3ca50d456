import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AI_PROVIDER_NAMES } from '../../../../src/adapters/ai/ai-providers.js';
import { TelegramChannel } from '../../../../src/adapters/messaging/telegram/telegram-channel.js';
import { GetJobStatus } from '../../../../src/application/jobs/get-job-status.js';
import { ChatAgent, NEW_THREAD_REPLY } from '../../../../src/application/messaging/chat-agent.js';
import { MessagingChannels } from '../../../../src/application/messaging/messaging-channels.js';
import { ReplyToChatMessage } from '../../../../src/application/messaging/reply-to-chat-message.js';
import type { ChannelMessage } from '../../../../src/domain/messaging/channel-message.js';
import { FakeMessagingChannel } from '../../../fakes/fake-messaging-channel.js';
import { InMemoryBotTokenStore } from '../../../fakes/in-memory-bot-token-store.js';
import { InMemoryConversationStore } from '../../../fakes/in-memory-conversation-store.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { createJobOnFakes } from '../../../fakes/fake-create-job.js';
import { ScriptedAiClient } from '../../../fakes/scripted-ai-client.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';

/*
 * `/new` starts a fresh conversation, and so did `/new@AnyBot`: in a Telegram group whose bots see
 * every message (privacy mode off), a command meant for another bot (`/new@OtherBot`) cleared
 * this bot's conversation of the group and was answered "Started a new conversation.". A command
 * addressed by name is this bot's only when the name is its own (getMe).
 */

const agentWith = (ai: ScriptedAiClient, conversations = new InMemoryConversationStore()) => {
  const jobs = new InMemoryJobRepository();
  const createJob = createJobOnFakes(jobs);
  return new ChatAgent(ai, conversations, createJob, new GetJobStatus(jobs), new SequentialIds(), {
    historyTurns: 10,
    maxSteps: 5,
    systemPrompt: async () => 'You are the bot.',
    llmProviders: AI_PROVIDER_NAMES,
  });
};

/** A platform whose bot is called `GatewayBot`; counts the look-ups of its name. */
class NamedBotChannel extends FakeMessagingChannel {
  lookups = 0;
  async botName(_token: string): Promise<string | undefined> {
    this.lookups++;
    return 'GatewayBot';
  }
}

const message = (text: string, updateId: string): ChannelMessage => ({
  threadId: '-42',
  text,
  attachments: [],
  metadata: { userId: 'fake', chatTitle: 'Fake', updateId, messageId: updateId, edited: false },
});

describe('/new addressed to a bot by name', () => {
  const setup = () => {
    const ai = new ScriptedAiClient([{ text: 'first answer' }, { text: 'answer to the other bot’s command' }, { text: 'after' }]);
    const conversations = new InMemoryConversationStore();
    const platform = new NamedBotChannel({ maxMessageLength: 4096 });
    const channels = new MessagingChannels([
      {
        platform,
        credentials: new InMemoryBotTokenStore('bot-token'),
        settings: {
          webhookSecret: 's',
          allowedChatIds: new Set(['-42']),
          variables: { botToken: 'FAKE_TOKEN', webhookSecret: 'FAKE_SECRET', allowedChats: 'FAKE_ALLOWED_CHATS' },
        },
      },
    ]);
    const reply = new ReplyToChatMessage(channels, agentWith(ai, conversations), new RecordingLogger());
    return { ai, conversations, platform, reply };
  };

  it("does not clear the conversation for another bot's /new (/new@OtherBot): it is a message like any other", async () => {
    const { conversations, platform, reply } = setup();
    await reply.execute({ message: message('hello', '1') });
    await reply.execute({ message: message('/new@OtherBot', '2') });
    expect(platform.sent.map((s) => s.message.plain)).to.not.include(NEW_THREAD_REPLY);
    expect((await conversations.recent('fake:-42', 10)).map((turn) => turn.text)).to.deep.equal([
      'hello',
      'first answer',
      '/new@OtherBot',
      'answer to the other bot’s command',
    ]);
  });

  it('clears it for /new and for /new@<its own name> (any case), looking the name up only for a command addressed by name', async () => {
    const { conversations, platform, reply } = setup();
    await reply.execute({ message: message('hello', '1') });
    await reply.execute({ message: message('/new', '2') });
    expect(platform.lookups).to.equal(0);
    expect(await conversations.recent('fake:-42', 10)).to.deep.equal([]);
    await reply.execute({ message: message('/new@gatewaybot', '3') });
    expect(platform.lookups).to.equal(1);
    expect(platform.sent.map((s) => s.message.plain).filter((text) => text === NEW_THREAD_REPLY)).to.have.length(2);
  });

  it('a platform that cannot tell its bot’s name: /new@<name> starts a new conversation, as before', async () => {
    const ai = new ScriptedAiClient([{ text: 'a' }]);
    const conversations = new InMemoryConversationStore();
    const agent = agentWith(ai, conversations);
    await agent.execute({ threadId: 'web:1', text: 'hi', images: [], metadata: { userId: 'web', chatTitle: 'Web' } });
    expect(await agent.execute({ threadId: 'web:1', text: '/new@Whatever', images: [], metadata: { userId: 'web', chatTitle: 'Web' } })).to.equal(
      NEW_THREAD_REPLY,
    );
    expect(await conversations.recent('web:1', 10)).to.deep.equal([]);
  });
});

describe('TelegramChannel.botName', () => {
  let server: Server;
  let url: string;
  let calls: string[];
  let failFirst: boolean;
  beforeEach(async () => {
    calls = [];
    failFirst = false;
    server = createServer((req, res) => {
      calls.push(req.url ?? '');
      if (failFirst) {
        failFirst = false;
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error_code: 500, description: 'Internal' }));
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ok: true, result: { id: 1, is_bot: true, first_name: 'G', username: 'GatewayBot' } }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => new Promise<void>((done) => server.close(() => done())));

  it("is the bot's username from getMe, asked once per token; a failed look-up is undefined and asked again next time", async () => {
    const telegram = new TelegramChannel({ apiUrl: url, attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 5000 });
    failFirst = true;
    expect(await telegram.botName('1:a')).to.equal(undefined);
    expect(await telegram.botName('1:a')).to.equal('GatewayBot');
    expect(await telegram.botName('1:a')).to.equal('GatewayBot');
    expect(calls).to.deep.equal(['/bot1:a/getMe', '/bot1:a/getMe']);
  });
});
