import { expect } from 'chai';
import { AiCallFailed } from '../../src/domain/ai/ai-call-failed.js';
import type { AiClient } from '../../src/ports/ai-client.js';

/**
 * A provider's API faked with the vendor's real request and response shapes; or, for the
 * scripted fake the unit tests use, its script (no provider stands behind it: it has no
 * `failure` nor `unreachable`, and the cases of failures are pending for it).
 */
export interface ProviderFake {
  /** Queue answers, consumed in order. */
  text(text: string): void;
  toolCall(name: string, input: Record<string, unknown>): void;
  failure?(status: number, headers?: Record<string, string>): void;
  /** The next answer is the vendor's 429 for a quota or spend limit used up (no wait cures it), where the vendor tells it apart. */
  usedUp?(): void;
  /** The next request finds no server (connection refused). */
  unreachable?(): void;
  /** Parsed request bodies, in order. */
  readonly requests: Array<Record<string, unknown>>;
  /** Whether a request body carries this text anywhere in its messages. */
  carries(body: Record<string, unknown>, text: string): boolean;
  /** Whether a request body carries an image with this base64 data. */
  carriesImage(body: Record<string, unknown>, base64: string): boolean;
  /** Whether a request body carries the result of a tool call containing this text. */
  carriesToolResult(body: Record<string, unknown>, text: string): boolean;
  done(): void;
}

/** The behaviour every AiClient adapter must have, per provider. */
export const describeAiClientContract = (
  name: string,
  open: () => { client: AiClient; fake: ProviderFake },
  /** `usedUpQuota`: the vendor's 429 says when a quota or spend limit is used up (the fake's `usedUp`). */
  options: { readonly usedUpQuota?: boolean } = {},
): void => {
  describe(`AiClient contract: ${name}`, () => {
    let client: AiClient;
    let fake: ProviderFake;
    beforeEach(() => {
      ({ client, fake } = open());
    });
    afterEach(() => fake.done());

    it('returns the text of an answer to the system prompt and the conversation', async () => {
      fake.text('Pong, from the model.');
      const response = await client.generate({
        system: 'Be brief.',
        messages: [
          { role: 'user', text: 'first question' },
          { role: 'assistant', text: 'first answer' },
          { role: 'user', text: 'Ping?' },
        ],
      });
      expect(response.text).to.equal('Pong, from the model.');
      const [body] = fake.requests;
      for (const text of ['Be brief.', 'first question', 'first answer', 'Ping?']) expect(fake.carries(body, text), text).to.equal(true);
    });

    it('runs a tool the model calls and sends its result back', async () => {
      fake.toolCall('get_job_status', { job_id: 'j-1' });
      fake.text('The job succeeded.');
      const calls: unknown[] = [];
      const response = await client.generate({
        messages: [{ role: 'user', text: 'How is j-1?' }],
        tools: [
          {
            name: 'get_job_status',
            description: 'Status of a job',
            parameters: { type: 'object', properties: { job_id: { type: 'string' } }, required: ['job_id'] },
            execute: async (input) => {
              calls.push(input);
              return { status: 'succeeded-xyz' };
            },
          },
        ],
        maxSteps: 3,
      });
      expect(calls).to.deep.equal([{ job_id: 'j-1' }]);
      expect(response.text).to.equal('The job succeeded.');
      expect(response.toolCalls).to.deep.equal([{ name: 'get_job_status', input: { job_id: 'j-1' } }]);
      expect(fake.carriesToolResult(fake.requests[1], 'succeeded-xyz')).to.equal(true);
    });

    it('sends images with a user message', async () => {
      fake.text('A red pixel.');
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
      await client.generate({ messages: [{ role: 'user', text: 'What is this?', images: [{ mediaType: 'image/png', data: png }] }] });
      expect(fake.carriesImage(fake.requests[0], png.toString('base64'))).to.equal(true);
    });

    it('retries a rate-limited call (pending for a fake with no provider behind it to fail)', async function () {
      if (fake.failure === undefined) return this.skip();
      fake.failure(429, { 'retry-after': '0' });
      fake.text('Second time lucky.');
      expect((await client.generate({ messages: [{ role: 'user', text: 'hi' }] })).text).to.equal('Second time lucky.');
      expect(fake.requests).to.have.length(2);
    });

    // Only for vendors whose 429 tells a used-up quota from a passing limit (Gemini's does not).
    if (options.usedUpQuota)
      it("does not retry a 429 saying the account's quota or spend limit is used up, and classifies it as refused", async () => {
        fake.usedUp?.();
        const error = await client.generate({ messages: [{ role: 'user', text: 'hi' }] }).catch((e: Error) => e);
        expect(error).to.be.instanceOf(AiCallFailed);
        expect(error).to.include({ reason: 'refused', httpStatus: 429 });
        expect(fake.requests).to.have.length(1);
      });

    it('fails with an error naming the provider when the call keeps failing, classified as unavailable with the status (pending for a fake with no provider behind it to fail)', async function () {
      if (fake.failure === undefined) return this.skip();
      fake.failure(500);
      fake.failure(500);
      const error = await client.generate({ messages: [{ role: 'user', text: 'hi' }] }).catch((e: Error) => e);
      expect(error).to.be.instanceOf(AiCallFailed);
      expect((error as Error).message).to.match(/model call failed/);
      expect(error).to.include({ reason: 'unavailable', httpStatus: 500, code: 'internal' });
    });

    it('classifies a refused call (401: the API key) as refused with its status, without trying again (pending for a fake with no provider behind it to fail)', async function () {
      if (fake.failure === undefined) return this.skip();
      fake.failure(401);
      const error = await client.generate({ messages: [{ role: 'user', text: 'hi' }] }).catch((e: Error) => e);
      expect(error).to.be.instanceOf(AiCallFailed);
      expect(error).to.include({ reason: 'refused', httpStatus: 401, code: 'internal' });
      expect(fake.requests).to.have.length(1);
    });

    it('classifies a provider it cannot connect to as unreachable (pending for a fake with no provider behind it to fail)', async function () {
      if (fake.unreachable === undefined) return this.skip();
      fake.unreachable();
      fake.unreachable();
      const error = await client.generate({ messages: [{ role: 'user', text: 'hi' }] }).catch((e: Error) => e);
      expect(error).to.be.instanceOf(AiCallFailed);
      expect(error).to.include({ reason: 'unreachable', httpStatus: undefined, code: 'internal' });
    });
  });
};
