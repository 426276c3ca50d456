import { expect } from 'chai';
import { waitFor } from '../support/http.js';
import type { MessagingChannel, ReplyTarget } from '../../src/ports/messaging-channel.js';
import type { FileBreak } from '../support/broken-download.js';

export type ChannelOperation = 'send' | 'acknowledge';
export type PlatformFailure = 'rate-limit' | 'server-error' | 'refused';

/** What the platform's fake recorded of one message. */
export interface SentMessage {
  readonly text: string;
  /** Sent in the platform's rich format (not as plain text). */
  readonly formatted: boolean;
  readonly topicId?: string;
}

/**
 * One adapter against a fresh loopback fake that speaks its platform's real protocol, and
 * the platform-specific knowledge the contract needs, in neutral terms. Each adapter's test
 * gives one (test/contract/messaging-channel.test.ts).
 */
export interface ChannelHarness {
  /** The adapter: 3 attempts per call, no backoff, rate-limit waits recorded in `waits` instead of waited. */
  readonly channel: MessagingChannel;
  /** The waits (ms) the adapter asked for. */
  readonly waits: number[];
  /** A bot token the fake accepts, and one it refuses. */
  readonly token: string;
  readonly invalidToken: string;
  /** A chat the fake knows, and a thread within it. */
  readonly chatId: string;
  readonly topicId: string;
  /** A delivery carrying a text message to `chatId` from a person, with this delivery id (as the platform numbers or names them). */
  textDelivery(deliveryNumber: number, text: string): unknown;
  /** A delivery with nothing to answer (the bot's own message). */
  botDelivery(deliveryNumber: number): unknown;
  /** The headers the platform sends with a request of `rawBody`, knowing `secret`, at `now`. */
  headersFor(rawBody: string, secret: string, now: Date): Record<string, string>;
  /** A formatted text the platform refuses to parse, when it refuses any (then the plain text is sent). */
  readonly unparseableFormat?: string;
  sent(): SentMessage[];
  /** The "typing…" indicators the fake received (always 0 where the platform has none). */
  typings(): number;
  /** The message ids acknowledged in `chatId`. */
  acknowledgements(): string[];
  /** Calls of an operation the fake received, failed ones included. */
  attempts(operation: ChannelOperation): number;
  /** Makes the next `times` calls of the operation fail as the platform does (a rate limit asks for a 1 s wait). */
  failNext(operation: ChannelOperation, failure: PlatformFailure, times?: number): void;
  /** Serves a file; returns the id to download it with. With `breaks`, its download's connection is dropped (FileBreak). */
  addFile(name: string, data: Uint8Array, breaks?: FileBreak): string;
  /** The webhook the fake platform was told, where the adapter registers one. */
  registeredWebhook(): { url: string; secret: string } | undefined;
  /** Where the adapter polls: queues `textDelivery(deliveryNumber, text)` on the platform, to be fetched by a poll. */
  queueDelivery?(deliveryNumber: number, text: string): void;
  /** How many polls the fake has received so far (where the platform can be polled). */
  polls?(): number;
  close(): Promise<void>;
}

const NOW = new Date('2026-01-01T12:00:00Z');

const failure = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => expect.fail('expected a failure'),
    (error: Error) => error,
  );
const thrown = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
};

/** The behaviour every MessagingChannel adapter must have, against its platform's fake. */
export const describeMessagingChannelContract = (name: string, open: () => Promise<ChannelHarness>): void => {
  describe(`MessagingChannel contract: ${name}`, () => {
    let h: ChannelHarness;
    let channel: MessagingChannel;
    let target: ReplyTarget;
    beforeEach(async () => {
      h = await open();
      channel = h.channel;
      target = { chatId: h.chatId };
    });
    afterEach(() => h.close());

    describe('identity', () => {
      it('has an id fit for a path segment, a title, a limit, and lower-case credential headers', () => {
        expect(channel.id).to.match(/^[a-z][a-z0-9-]{0,31}$/);
        expect(channel.title).to.be.a('string').and.not.equal('');
        expect(channel.maxMessageLength).to.be.at.least(100);
        expect(channel.credentialHeaders.length).to.be.at.least(1);
        for (const header of channel.credentialHeaders) expect(header).to.equal(header.toLowerCase());
      });
    });

    describe('inbound', () => {
      it('accepts a request the platform sent with the secret: its headers and then the whole request', () => {
        const raw = JSON.stringify(h.textDelivery(1, 'hello'));
        const headers = h.headersFor(raw, 'the-secret', NOW);
        expect(channel.checkHeaders(headers, 'the-secret', NOW)).to.equal(true);
        expect(channel.verify({ headers, rawBody: new TextEncoder().encode(raw) }, 'the-secret', NOW)).to.equal(true);
      });

      it('refuses a request without the credentials, or made with another secret', () => {
        const raw = JSON.stringify(h.textDelivery(1, 'hello'));
        const request = (headers: Record<string, string>) => ({ headers, rawBody: new TextEncoder().encode(raw) });
        expect(channel.checkHeaders({}, 'the-secret', NOW)).to.equal(false);
        const other = h.headersFor(raw, 'another-secret', NOW);
        expect(channel.checkHeaders(other, 'the-secret', NOW) && channel.verify(request(other), 'the-secret', NOW)).to.equal(false);
      });

      it('carries its credentials in the headers it names, so they can be kept out of snapshots and logs', () => {
        const headers = Object.keys(h.headersFor('{}', 'the-secret', NOW));
        expect(headers.filter((header) => channel.credentialHeaders.includes(header))).to.not.deep.equal([]);
      });

      it('reads a text message into the neutral message: its channel, chat, text and string ids', () => {
        const parsed = channel.parse(h.textDelivery(1, 'What is the weather?'));
        expect(parsed.deliveryId).to.be.a('string').and.not.equal('');
        const message = parsed.message!;
        expect(message.threadId).to.equal(h.chatId);
        expect(message.text).to.equal('What is the weather?');
        expect(message.attachments).to.deep.equal([]);
        expect(message.metadata).to.include({ userId: channel.id, chatTitle: channel.title, updateId: parsed.deliveryId, edited: false });
        expect(message.metadata.messageId).to.be.a('string').and.not.equal('');
        expect(channel.handshake(h.textDelivery(1, 'x'))).to.equal(undefined);
      });

      it('gives a delivery the same id every time it comes, and another delivery another', () => {
        const first = channel.parse(h.textDelivery(1, 'a')).deliveryId;
        expect(channel.parse(h.textDelivery(1, 'a')).deliveryId).to.equal(first);
        expect(channel.parse(h.textDelivery(2, 'a')).deliveryId).not.to.equal(first);
      });

      it('reads a delivery with nothing to answer as no message, with its id', () => {
        const parsed = channel.parse(h.botDelivery(3));
        expect(parsed.message).to.equal(null);
        expect(parsed.deliveryId).to.be.a('string').and.not.equal('');
      });

      it('refuses a body without a delivery id as invalid input, whatever its shape', () => {
        for (const body of [{}, [], 'text', null, 42, { message: {} }]) {
          expect(
            thrown(() => channel.parse(body)),
            JSON.stringify(body),
          ).to.have.property('code', 'invalid_input');
        }
      });
    });

    describe('replies', () => {
      it('formats a long Markdown reply into parts within the limit, keeping all of it, a code block that fits whole', () => {
        const paragraph = (i: number) => `Paragraph ${i}: ${'lorem ipsum '.repeat(Math.ceil(channel.maxMessageLength / 40))}`;
        const code = '```\nconst x = 1;\n```';
        const markdown = [paragraph(1), paragraph(2), code, paragraph(3), paragraph(4)].join('\n\n');
        const parts = channel.formatReply(markdown);
        expect(parts.length).to.be.at.least(2);
        for (const part of parts) expect(part.plain.length).to.be.within(1, channel.maxMessageLength);
        expect(
          parts
            .map((part) => part.plain)
            .join('')
            .replace(/\s+/g, ''),
        ).to.equal(markdown.replace(/\s+/g, ''));
        expect(parts.filter((part) => part.plain.includes(code))).to.have.length(1);
        expect(channel.formatReply(' \n ')).to.deep.equal([]);
      });

      it('sends formatted text, to a thread too, and plain text when the platform refuses the formatting', async () => {
        const [part] = channel.formatReply('hi **there**');
        await channel.sendMessage(h.token, target, part);
        await channel.sendMessage(h.token, { chatId: h.chatId, topicId: h.topicId }, { plain: 'in the thread' });
        expect(h.sent()[0]).to.include({ formatted: true });
        expect(h.sent()[0].text).to.contain('there').and.not.contain('**');
        expect(h.sent()[1]).to.deep.include({ text: 'in the thread', topicId: h.topicId });
        if (h.unparseableFormat !== undefined) {
          await channel.sendMessage(h.token, target, { plain: 'x <y>', formatted: h.unparseableFormat });
          expect(
            h
              .sent()
              .slice(2)
              .map((m) => [m.text, m.formatted]),
          ).to.deep.equal([
            [h.unparseableFormat, true],
            ['x <y>', false],
          ]);
        }
      });

      it('waits out a rate limit as the platform asks, then sends', async () => {
        h.failNext('send', 'rate-limit');
        await channel.sendMessage(h.token, target, { plain: 'patient' });
        expect(h.waits).to.deep.equal([1000]);
        expect(h.attempts('send')).to.equal(2);
        expect(h.sent().map((m) => m.text)).to.include('patient');
      });

      it("tries a server error again, and gives up with the platform's reason, never the token, after the attempts", async () => {
        h.failNext('send', 'server-error');
        await channel.sendMessage(h.token, target, { plain: 'second time lucky' });
        expect(h.attempts('send')).to.equal(2);
        h.failNext('acknowledge', 'server-error', 3);
        const error = await failure(channel.acknowledge(h.token, target, channel.parse(h.textDelivery(4, 'hi')).message!.metadata.messageId));
        expect(error.message)
          .to.match(/internal|server/i)
          .and.not.to.contain(h.token);
        expect(h.attempts('acknowledge')).to.equal(3);
      });

      it('does not try a refused call again (4xx other than 429)', async () => {
        h.failNext('acknowledge', 'refused');
        await failure(channel.acknowledge(h.token, target, '77'));
        expect(h.attempts('acknowledge')).to.equal(1);
      });

      it('shows typing where the platform has it (nothing where it has none) and acknowledges a message', async () => {
        await channel.sendTyping(h.token, target);
        await channel.acknowledge(h.token, target, channel.parse(h.textDelivery(5, 'hi')).message!.metadata.messageId);
        expect(h.typings()).to.equal(channel.typingRefreshMs === undefined ? 0 : 1);
        expect(h.acknowledgements()).to.deep.equal([channel.parse(h.textDelivery(5, 'hi')).message!.metadata.messageId]);
        expect(channel.typingRefreshMs === undefined || channel.typingRefreshMs > 0).to.equal(true);
      });

      it('never puts the token in an error, whatever fails', async () => {
        const error = await failure(channel.sendMessage(h.invalidToken, target, { plain: 'x' }));
        expect(error.message).not.to.contain(h.invalidToken);
      });
    });

    it('downloads a file by its id, and fails for an unknown one', async () => {
      const fileId = h.addFile('photo.jpg', new Uint8Array([0xff, 0xd8, 0xff, 0xe0]));
      const file = await channel.download(h.token, fileId);
      expect(file.path).to.contain('photo');
      expect([...file.data]).to.deep.equal([0xff, 0xd8, 0xff, 0xe0]);
      await failure(channel.download(h.token, 'nope'));
    });

    it('refuses a file over the size asked for, as too large, without returning it', async () => {
      const fileId = h.addFile('big.txt', new Uint8Array(5000).fill(65));
      const error = await failure(channel.download(h.token, fileId, 1000));
      expect(error).to.include({ code: 'payload_too_large' });
      expect((await channel.download(h.token, fileId, 5000)).data.length).to.equal(5000);
    });

    it("never puts the token in a download's error when the connection breaks, before the answer or in the body", async () => {
      for (const breaks of ['before-answer', 'mid-body'] as const) {
        const fileId = h.addFile('voice.ogg', new Uint8Array(64).fill(7), breaks);
        const error = await failure(channel.download(h.token, fileId));
        expect(`${error.message}\n${error.stack}`, breaks).not.to.contain(h.token);
      }
    });

    describe('webhook registration, where the platform has it (pending for a platform without registration)', () => {
      it('registers the webhook with the secret and reads it back', async function () {
        const registration = channel.registration;
        if (registration === undefined) return this.skip();
        expect(registration.tokenProblem(h.token)).to.equal(undefined);
        expect(registration.tokenProblem('not a token\n')).to.be.a('string');
        await registration.setWebhook(h.token, 'https://gw.example.com/api/messaging/x/webhook', 'shh-secret');
        expect(h.registeredWebhook()).to.deep.equal({ url: 'https://gw.example.com/api/messaging/x/webhook', secret: 'shh-secret' });
        expect(await registration.getWebhookInfo(h.token)).to.deep.include({ url: 'https://gw.example.com/api/messaging/x/webhook', pendingUpdateCount: 0 });
      });

      it("fails registration with the platform's reason and never the token", async function () {
        const registration = channel.registration;
        if (registration === undefined) return this.skip();
        const error = await failure(registration.setWebhook(h.token, 'http://not-https.example.com', 's'));
        expect(error.message).to.contain('HTTPS').and.not.to.contain(h.token);
        const bad = await failure(registration.getWebhookInfo(h.invalidToken));
        expect(bad.message).to.contain('Unauthorized').and.not.to.contain(h.invalidToken);
      });

      it("tells where a bot's deliveries go: its webhook's URL, or null for a token the platform refuses (a revoked bot)", async function () {
        const registration = channel.registration;
        if (registration === undefined) return this.skip();
        await registration.setWebhook(h.token, 'https://gw.example.com/api/messaging/y/webhook', 'shh-secret');
        expect(await registration.webhookUrl(h.token)).to.equal('https://gw.example.com/api/messaging/y/webhook');
        expect(await registration.webhookUrl(h.invalidToken)).to.equal(null);
      });
    });

    describe('polling, where the platform has it (pending for a platform without polling)', () => {
      it('fetches the waiting deliveries in order, each readable as a webhook delivery, with the cursor past it; that cursor confirms them', async function () {
        const polling = channel.polling;
        if (polling === undefined || h.queueDelivery === undefined) return this.skip();
        await polling.stopWebhook(h.token);
        h.queueDelivery(301, 'first');
        h.queueDelivery(302, 'second');
        const polled = await polling.poll(h.token, undefined, 0, new AbortController().signal);
        expect(polled.map((delivery) => channel.parse(delivery.body).message?.text)).to.deep.equal(['first', 'second']);
        expect(polled.map((delivery) => channel.parse(delivery.body).deliveryId)).to.deep.equal([
          channel.parse(h.textDelivery(301, '')).deliveryId,
          channel.parse(h.textDelivery(302, '')).deliveryId,
        ]);
        expect(await polling.poll(h.token, polled[1].next, 0, new AbortController().signal)).to.deep.equal([]);
      });

      it('waits for a delivery, and ends the wait at once when aborted', async function () {
        const polling = channel.polling;
        if (polling === undefined || h.queueDelivery === undefined || h.polls === undefined) return this.skip();
        const polls = h.polls;
        await polling.stopWebhook(h.token);
        // The delivery is queued once the long poll is waiting at the platform: the poll must wait for it.
        let seen = polls();
        const waiting = polling.poll(h.token, undefined, 20, new AbortController().signal);
        await waitFor(() => polls() > seen, 10_000, 'the poll waiting');
        h.queueDelivery(303, 'late');
        expect((await waiting).map((delivery) => channel.parse(delivery.body).message?.text)).to.deep.equal(['late']);
        const stop = new AbortController();
        seen = polls();
        const aborted = polling.poll(h.token, (await waiting)[0].next, 20, stop.signal);
        await waitFor(() => polls() > seen, 10_000, 'the second poll waiting');
        const started = Date.now();
        stop.abort(new Error('shutting down'));
        expect((await failure(aborted)).message).to.equal('shutting down');
        expect(Date.now() - started).to.be.below(5000);
      });
    });
  });
};
