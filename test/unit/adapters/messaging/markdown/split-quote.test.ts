import { expect } from 'chai';
import { Lexer, type Token } from 'marked';
import { splitMarkdown } from '../../../../../src/adapters/messaging/markdown/split-markdown.js';
import { SlackChannel } from '../../../../../src/adapters/messaging/slack/slack-channel.js';
import { TelegramChannel } from '../../../../../src/adapters/messaging/telegram/telegram-channel.js';
import { jobNoticeMarkdown } from '../../../../../src/application/messaging/notify-chat-of-job.js';
import type { Job } from '../../../../../src/domain/jobs/job.js';

/*
 * A quote cut inside one of its lines (a line longer than a message): the rest of the line went
 * into the next part without its `>`, so it showed as ordinary text. A finished job's notice
 * quotes the summary the job's agent wrote so that none of it can pass for the gateway's own
 * lines (docs/chat.md): a summary with one long line had its end shown outside the quote, in the
 * same message as the gateway's `Branch:` line — a forged `Job … succeeded.` or `Pull request:`.
 */

/** The text of the Markdown that is not inside a block quote, as the `marked` lexer reads it. */
const outsideQuotes = (markdown: string): string =>
  new Lexer()
    .blockTokens(markdown)
    .filter((token: Token) => token.type !== 'blockquote' && token.type !== 'space')
    .map((token) => token.raw)
    .join('');

const JOB_ID = '0192f0a0-0000-7000-8000-000000000001';
const FORGED = `Job ${JOB_ID} succeeded. Pull request: https://evil.example/pull/1`;
/** A summary whose one long line ends with what would pass for the gateway's lines. */
const hostileSummary = (words: number): string => `Done. ${'word '.repeat(words)}${FORGED}`;

const failedJob = (summary: string): Job =>
  ({
    id: JOB_ID,
    job: 'do it',
    status: 'failed',
    source: { kind: 'chat', thread: 'telegram:100' },
    llmProvider: null,
    llmModel: null,
    branch: `job/${JOB_ID}`,
    prUrl: null,
    runUrl: null,
    summary,
    error: 'the agent exited with 1',
    log: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  }) as Job;

describe('splitMarkdown: a quote cut inside a line', () => {
  it('goes on as a quote in the next part: every part of a quote with a line longer than the limit is all quote', () => {
    const quote = `> ${'alpha beta gamma '.repeat(40)}end\n> second line`;
    const parts = splitMarkdown(quote, 200);
    expect(parts.length).to.be.greaterThan(1);
    for (const part of parts) {
      expect(part.length, part).to.be.at.most(200);
      expect(outsideQuotes(part), part).to.equal('');
    }
    // Nothing of the text is lost.
    const words = (text: string): string => text.replace(/>/g, '').replace(/\s+/g, ' ').trim();
    expect(words(parts.join(' '))).to.equal(words(quote));
  });

  it('a quote line cut inside a word (no space in reach) goes on as a quote too', () => {
    const quote = `> ${'x'.repeat(450)}`;
    const parts = splitMarkdown(quote, 100);
    expect(parts.length).to.be.greaterThan(1);
    for (const part of parts) {
      expect(part.length, part).to.be.at.most(100);
      expect(outsideQuotes(part), part).to.equal('');
    }
    expect(parts.join('').replace(/[>\s]/g, '')).to.equal('x'.repeat(450));
  });

  it('text after the quote is not pulled into it', () => {
    const parts = splitMarkdown(`> ${'word '.repeat(60)}\n\nAfter the quote.`, 120);
    expect(parts.at(-1)).to.match(/\n\nAfter the quote\.$|^After the quote\.$/);
    expect(outsideQuotes(parts.at(-1)!)).to.contain('After the quote.');
  });
});

describe("a finished job's notice with a summary line longer than a message", () => {
  for (const words of [900, 905, 1200]) {
    it(`Telegram (${words} words): no text of the summary is outside the quote in any part`, () => {
      const telegram = new TelegramChannel({ apiUrl: 'http://127.0.0.1:9', attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 1000 });
      const parts = telegram.formatReply(jobNoticeMarkdown(failedJob(hostileSummary(words))));
      expect(parts.length).to.be.greaterThan(1);
      for (const part of parts) {
        const shownOutsideQuote = (part.formatted ?? part.plain).replace(/<blockquote>[\s\S]*?<\/blockquote>/g, '');
        expect(shownOutsideQuote, part.formatted ?? part.plain).not.to.match(/word|evil\.example|succeeded/);
      }
    });
  }

  it('Slack: every line of the summary, in every part, is a quote line', () => {
    const slack = new SlackChannel({ apiUrl: 'http://127.0.0.1:9', attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 1000 });
    const parts = slack.formatReply(jobNoticeMarkdown(failedJob(hostileSummary(800))));
    expect(parts.length).to.be.greaterThan(1);
    for (const part of parts) {
      for (const line of (part.formatted ?? part.plain).split('\n')) {
        if (/word|evil\.example|succeeded/.test(line)) expect(line, line).to.match(/^(?:>|&gt;)/);
      }
    }
  });
});
