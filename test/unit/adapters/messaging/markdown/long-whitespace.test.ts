import { expect } from 'chai';
import { splitMarkdown } from '../../../../../src/adapters/messaging/markdown/split-markdown.js';
import { SlackChannel } from '../../../../../src/adapters/messaging/slack/slack-channel.js';
import { markdownToMrkdwn } from '../../../../../src/adapters/messaging/slack/slack-mrkdwn.js';
import { TelegramChannel } from '../../../../../src/adapters/messaging/telegram/telegram-channel.js';
import { markdownToTelegramHtml } from '../../../../../src/adapters/messaging/telegram/telegram-html.js';

// A model's reply may hold a long run of whitespace followed by more text (a chat user or a
// document can ask for it). Formatting such a reply used to take time growing with the square of
// the run (an end-anchored regex tried from every position of it): 40 000 spaces took 4 s, these
// 200 000 minutes. Each case checks the output; the test's timeout is what a regression trips.
const RUN = 200_000;
const settings = { apiUrl: 'http://127.0.0.1:9', attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 1000 };

describe('formatting a reply with a long run of whitespace', function () {
  this.timeout(10_000);

  const spaces = `a${' '.repeat(RUN)}b`;
  const spacesThenBreak = `a${' '.repeat(RUN)}\nb`;
  const mixed = `a${' \t\n'.repeat(RUN / 2)}b`;
  const listItem = `- a${'\n'.repeat(RUN)}  b`;
  const quote = `> a${'\n>'.repeat(RUN)}\n> b`;

  describe('markdownToTelegramHtml', () => {
    it('keeps a long run of spaces inside a paragraph', () => {
      expect(markdownToTelegramHtml(spaces)).to.equal(spaces);
    });

    it('keeps a long run of spaces at the end of a line, and the next line', () => {
      expect(markdownToTelegramHtml(spacesThenBreak)).to.equal(spacesThenBreak);
    });

    it('keeps the line breaks of a long run of blank lines and drops their spaces', () => {
      expect(markdownToTelegramHtml(mixed)).to.equal(`a${'\n'.repeat(RUN / 2)}b`);
    });

    it('keeps the line breaks inside a list item, indented under it', () => {
      expect(markdownToTelegramHtml(listItem)).to.equal(`- a${'\n  '.repeat(RUN)}b`);
    });

    it('keeps the empty lines inside a quote', () => {
      expect(markdownToTelegramHtml(quote)).to.equal(`<blockquote>a${'\n'.repeat(RUN + 1)}b</blockquote>`);
    });
  });

  describe('markdownToMrkdwn', () => {
    it('keeps a long run of spaces inside a paragraph', () => {
      expect(markdownToMrkdwn(spaces)).to.equal(spaces);
    });

    it('keeps a long run of spaces at the end of a line, and the next line', () => {
      expect(markdownToMrkdwn(spacesThenBreak)).to.equal(spacesThenBreak);
    });

    it('keeps the line breaks of a long run of blank lines and drops their spaces', () => {
      expect(markdownToMrkdwn(mixed)).to.equal(`a${'\n'.repeat(RUN / 2)}b`);
    });

    it('keeps the line breaks inside a list item, indented under it', () => {
      expect(markdownToMrkdwn(listItem)).to.equal(`• a${'\n  '.repeat(RUN)}b`);
    });

    it('keeps the empty lines inside a quote', () => {
      expect(markdownToMrkdwn(quote)).to.equal(quote);
    });
  });

  describe('splitMarkdown', () => {
    it('cuts at the run of spaces, which no part keeps', () => {
      expect(splitMarkdown(spaces, 4096)).to.deep.equal(['a', 'b']);
      expect(splitMarkdown(spacesThenBreak, 4096)).to.deep.equal(['a', 'b']);
    });

    it('cuts at the run of blank lines, which no part keeps', () => {
      expect(splitMarkdown(mixed, 4096)).to.deep.equal(['a', 'b']);
      expect(splitMarkdown(listItem, 4096)).to.deep.equal(['- a', '  b']);
    });
  });

  describe('formatReply', () => {
    it('Telegram sends the text around the run, each part formatted', () => {
      const channel = new TelegramChannel(settings);
      const expected = [
        { plain: 'a', formatted: 'a' },
        { plain: 'b', formatted: 'b' },
      ];
      expect(channel.formatReply(spaces)).to.deep.equal(expected);
      expect(channel.formatReply(spacesThenBreak)).to.deep.equal(expected);
      expect(channel.formatReply(mixed)).to.deep.equal(expected);
    });

    it('Slack sends the text around the run, each part formatted', () => {
      const channel = new SlackChannel(settings);
      const expected = [
        { plain: 'a', formatted: 'a' },
        { plain: 'b', formatted: 'b' },
      ];
      expect(channel.formatReply(spaces)).to.deep.equal(expected);
      expect(channel.formatReply(spacesThenBreak)).to.deep.equal(expected);
      expect(channel.formatReply(mixed)).to.deep.equal(expected);
    });
  });
});
