import { expect } from 'chai';
import { SlackChannel } from '../../../../../src/adapters/messaging/slack/slack-channel.js';
import { escapeSlack, markdownToMrkdwn, unescapeSlack } from '../../../../../src/adapters/messaging/slack/slack-mrkdwn.js';
import { LINK_LABEL_BYPASSES, shownLabel } from '../../../../support/link-bypasses.js';

describe('markdownToMrkdwn', () => {
  const cases: Array<[string, string, string]> = [
    ['bold, italic, both, strike', '**b** *i* _i_ ***bi*** ~~s~~', '*b* _i_ _i_ *_bi_* ~s~'],
    ['inline code, escaped inside', 'run `a < b && c`', 'run `a &lt; b &amp;&amp; c`'],
    ['a heading is a bold line', '## Results', '*Results*'],
    ['a link with its text; & in the address escaped', '[the docs](https://x.example/a?b=1&c=2)', '<https://x.example/a?b=1&amp;c=2|the docs>'],
    ['an autolink', '<https://x.example>', '<https://x.example>'],
    ['a bare URL stays text (Slack links it)', 'see https://x.example/p', 'see https://x.example/p'],
    ['a link of another scheme stays text', '[x](javascript:alert(1))', '[x](javascript:alert(1))'],
    [
      'a link whose text names another host than it opens stays as typed, both visible',
      '[https://github.com/acme/repo/pull/1](https://evil.example/phish) [github.com/acme](http://evil.example) ![www.github.com](https://evil.example/i.png)',
      '[https://github.com/acme/repo/pull/1](https://evil.example/phish) [github.com/acme](http://evil.example) ![www.github.com](https://evil.example/i.png)',
    ],
    [
      'a link whose text is words, the same URL or the same host stays a link',
      '[the PR](https://evil.example/p) [github.com](https://github.com/a) [https://github.com/a](https://github.com/a)',
      '<https://evil.example/p|the PR> <https://github.com/a|github.com> <https://github.com/a>',
    ],
    ['a | in a label cannot end it', '[a|b](https://x.example)', '<https://x.example|a¦b>'],
    ['bullets become •, numbers stay', '- one\n* two\n\n1. first\n2. second', '• one\n• two\n\n1. first\n2. second'],
    ['a quote', '> quoted **x**\n> more', '> quoted *x*\n> more'],
    ['a rule', 'a\n\n---\n\nb', 'a\n\n───\n\nb'],
    ['emphasis never spans lines', 'a *b\nc* d', 'a *b\nc* d'],
    ['a stray marker stays text', '2 * 3 = 6', '2 * 3 = 6'],
    ['a numeric character reference is its character, every & of its line escaped once', 'AT&T &#8482; &#x26;', 'AT&amp;T ™ &amp;'],
  ];
  for (const [what, markdown, mrkdwn] of cases) {
    it(what, () => expect(markdownToMrkdwn(markdown)).to.equal(mrkdwn));
  }

  for (const label of LINK_LABEL_BYPASSES) {
    it(`leaves a link whose label shows another host once read as typed: ${shownLabel(label)}`, () => {
      const mrkdwn = markdownToMrkdwn(`[${label}](https://evil.example/phish) ![${label}](https://evil.example/i.png)`);
      expect(mrkdwn).not.to.match(/<https:\/\/evil\.example/);
    });
  }

  it('writes a fenced code block without its language, its content escaped and nothing else', () => {
    expect(markdownToMrkdwn('```ts\nif (a < b) { x = **y**; }\n```')).to.equal('```\nif (a &lt; b) { x = **y**; }\n```');
  });

  it('escapes &, < and > everywhere, so the reply can never mention, link a channel or broadcast', () => {
    const out = markdownToMrkdwn('Tom & Jerry <!channel> <@U123> <#C123> <b>html</b>');
    expect(out).to.equal('Tom &amp; Jerry &lt;!channel&gt; &lt;@U123&gt; &lt;#C123&gt; &lt;b&gt;html&lt;/b&gt;');
    expect(out).not.to.match(/<[!@#]/);
  });

  it('never throws, also for nesting deeper than the call stack', () => {
    const deep = `${'> '.repeat(20_000)}x <y>`;
    expect(markdownToMrkdwn(deep)).to.be.a('string').and.not.contain('<y>');
  });

  it("undoes Slack's escapes of user text", () => {
    expect(unescapeSlack(escapeSlack('a & <b> &amp;'))).to.equal('a & <b> &amp;');
  });
});

describe('SlackChannel.formatReply: splitting at 3 500 characters on block boundaries', () => {
  const channel = new SlackChannel({ apiUrl: 'https://slack.example/api', attempts: 1, backoffMs: 0, maxRetryAfterMs: 0, timeoutMs: 1000 });

  it('keeps a short reply whole, formatted', () => {
    expect(channel.formatReply('Hello **there**')).to.deep.equal([{ plain: 'Hello **there**', formatted: 'Hello *there*' }]);
  });

  it('cuts between paragraphs, each part within the limit, all of the text kept in order', () => {
    const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i}: ${'lorem ipsum dolor '.repeat(40)}`.trim());
    const parts = channel.formatReply(paragraphs.join('\n\n'));
    expect(parts.length).to.be.at.least(3);
    for (const part of parts) {
      expect(part.plain.length).to.be.within(1, 3500);
      expect(part.formatted!.length).to.be.within(1, 3500);
    }
    for (const paragraph of paragraphs) expect(parts.filter((part) => part.plain.includes(paragraph))).to.have.length(1);
    expect(parts.map((part) => part.plain).join('\n\n')).to.equal(paragraphs.join('\n\n'));
  });

  it('never cuts a code block that fits in one message', () => {
    const code = `\`\`\`\n${'const x = 1;\n'.repeat(150)}\`\`\``;
    const markdown = [`${'intro '.repeat(500)}`, code, 'outro'].join('\n\n');
    const parts = channel.formatReply(markdown);
    expect(parts.filter((part) => part.plain.includes(code))).to.have.length(1);
    expect(parts.find((part) => part.plain.includes(code))!.formatted).to.match(/^```\n/);
  });

  it('keeps the formatted text within the limit too when escapes lengthen it (a reply full of <, > and &)', () => {
    const markdown = Array.from({ length: 20 }, () => '<<>> && '.repeat(40)).join('\n\n');
    const parts = channel.formatReply(markdown);
    for (const part of parts) expect(part.formatted!.length).to.be.at.most(3500);
    expect(
      parts
        .map((part) => part.plain)
        .join('')
        .replace(/\s+/g, ''),
    ).to.equal(markdown.replace(/\s+/g, ''));
  });
});
