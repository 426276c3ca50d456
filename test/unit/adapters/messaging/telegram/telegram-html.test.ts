import { expect } from 'chai';
import { escapeHtml, markdownToTelegramHtml } from '../../../../../src/adapters/messaging/telegram/telegram-html.js';
import { LINK_LABEL_BYPASSES, shownLabel } from '../../../../support/link-bypasses.js';

/** Whether every tag in `html` is closed in order, none is nested in itself, and no bare < > & remain. */
const wellFormed = (html: string): boolean => {
  const open: string[] = [];
  for (const [, closing, name] of html.matchAll(/<(\/?)([a-z]+)(?: (?:class|href)="[^"<>]*")?>/g)) {
    if (closing) {
      if (open.pop() !== name) return false;
    } else {
      if (open.includes(name)) return false;
      open.push(name);
    }
  }
  const text = html.replace(/<\/?[a-z]+(?: (?:class|href)="[^"<>]*")?>/g, '');
  return open.length === 0 && !/[<>]/.test(text) && !/&(?!amp;|lt;|gt;|quot;)/.test(text);
};

describe('telegramHtml', () => {
  describe('escapeHtml', () => {
    it('escapes &, < and >', () => {
      expect(escapeHtml('a < b && c > d')).to.equal('a &lt; b &amp;&amp; c &gt; d');
    });

    it('escapes an existing entity again, so it shows as typed', () => {
      expect(escapeHtml('&lt;')).to.equal('&amp;lt;');
    });

    it('leaves quotes, apostrophes and other characters alone', () => {
      expect(escapeHtml(`"it's" – 😀`)).to.equal(`"it's" – 😀`);
    });
  });

  describe('markdownToTelegramHtml', () => {
    describe('plain text', () => {
      it('escapes text without Markdown', () => {
        expect(markdownToTelegramHtml('Use <div> & <span> tags')).to.equal('Use &lt;div&gt; &amp; &lt;span&gt; tags');
      });

      it('escapes HTML written in the Markdown instead of passing it through', () => {
        expect(markdownToTelegramHtml('<b>not bold</b><script>x</script>')).to.equal('&lt;b&gt;not bold&lt;/b&gt;&lt;script&gt;x&lt;/script&gt;');
      });

      it('shows a numeric character reference as its character and every & of its line once (not &amp;)', () => {
        expect(markdownToTelegramHtml('AT&T &#8482;')).to.equal('AT&amp;T ™');
        expect(markdownToTelegramHtml('a &#x26; b & c, &#39;q&#39; &#0; &copy;')).to.equal("a &amp; b &amp; c, 'q' \uFFFD &amp;copy;");
        expect(markdownToTelegramHtml('**AT&T &#8482;**')).to.equal('<b>AT&amp;T ™</b>');
      });

      it('keeps line breaks and empty lines', () => {
        expect(markdownToTelegramHtml('one\n\ntwo\nthree')).to.equal('one\n\ntwo\nthree');
      });

      it('returns an empty string for an empty input', () => {
        expect(markdownToTelegramHtml('')).to.equal('');
      });
    });

    describe('code', () => {
      it('turns a fenced block with a language into pre/code with the language class, escaped and not formatted', () => {
        const markdown = '```python\nif a < b and **kw:\n    print("x & y")\n```';
        expect(markdownToTelegramHtml(markdown)).to.equal('<pre><code class="language-python">if a &lt; b and **kw:\n    print("x &amp; y")</code></pre>');
      });

      it('turns a fenced block without a language into pre', () => {
        expect(markdownToTelegramHtml('```\n_not italic_ <x>\n```')).to.equal('<pre>_not italic_ &lt;x&gt;</pre>');
      });

      it('keeps the text around a block', () => {
        expect(markdownToTelegramHtml('Run:\n```sh\nnpm test\n```\nThen **check**.')).to.equal(
          'Run:\n<pre><code class="language-sh">npm test</code></pre>\nThen <b>check</b>.',
        );
      });

      it('runs an unclosed block to the end of the text', () => {
        expect(markdownToTelegramHtml('```js\nconst a = 1;\n**x**')).to.equal('<pre><code class="language-js">const a = 1;\n**x**</code></pre>');
      });

      it('closes a block only on a fence at least as long as the opening one', () => {
        expect(markdownToTelegramHtml('````md\n```\ninner\n```\n````')).to.equal('<pre><code class="language-md">```\ninner\n```</code></pre>');
      });

      it('leaves out a language that could break the attribute', () => {
        expect(markdownToTelegramHtml('```"><b>\nx\n```')).to.equal('<pre>x</pre>');
      });

      it('turns inline code into code, escaped and not formatted', () => {
        expect(markdownToTelegramHtml('Call `render(<App/>, **root**)` now')).to.equal('Call <code>render(&lt;App/&gt;, **root**)</code> now');
      });

      it('lets double backticks hold a single backtick', () => {
        expect(markdownToTelegramHtml('`` a ` b ``')).to.equal('<code>a ` b</code>');
      });

      it('leaves an unclosed or blank backtick as text', () => {
        expect(markdownToTelegramHtml('a ` b')).to.equal('a ` b');
        expect(markdownToTelegramHtml('` ` then `x`')).to.equal('` ` then <code>x</code>');
      });
    });

    describe('emphasis', () => {
      const cases: Array<[string, string]> = [
        ['**bold**', '<b>bold</b>'],
        ['__bold__', '<b>bold</b>'],
        ['*italic*', '<i>italic</i>'],
        ['_italic_', '<i>italic</i>'],
        ['~~struck~~', '<s>struck</s>'],
        ['***both***', '<b><i>both</i></b>'],
        ['**bold *and italic* inside**', '<b>bold <i>and italic</i> inside</b>'],
        ['*italic **and bold** inside*', '<i>italic <b>and bold</b> inside</i>'],
        ['~~**struck bold**~~', '<s><b>struck bold</b></s>'],
        ['**a** and **b**', '<b>a</b> and <b>b</b>'],
        ['**Note:** read this', '<b>Note:</b> read this'],
        ['a **b & c** <d>', 'a <b>b &amp; c</b> &lt;d&gt;'],
      ];
      for (const [markdown, html] of cases) {
        it(`renders ${markdown} as ${html}`, () => {
          expect(markdownToTelegramHtml(markdown)).to.equal(html);
        });
      }

      it('does not open a tag inside the same tag', () => {
        expect(markdownToTelegramHtml('**bold __still bold__ bold**')).to.equal('<b>bold still bold bold</b>');
      });
    });

    describe('markers that are not emphasis', () => {
      const literal: Array<[string, string]> = [
        ['snake_case_words', 'snake_case_words'],
        ['set max_retry_count and min_delay_ms', 'set max_retry_count and min_delay_ms'],
        ['* first item\n* second item', '* first item\n* second item'],
        ['- dash item\n1. numbered', '- dash item\n1. numbered'],
        ['2 * 3 * 4 = 24', '2 * 3 * 4 = 24'],
        ['**never closed', '**never closed'],
        ['closed only**', 'closed only**'],
        ['*one **two', '*one **two'],
        ['~single~ tilde', '~single~ tilde'],
        ['** spaced **', '** spaced **'],
        ['****', '****'],
        ['\\*escaped\\* and \\_escaped\\_', '*escaped* and _escaped_'],
      ];
      for (const [markdown, html] of literal) {
        it(`leaves ${JSON.stringify(markdown)} as text`, () => {
          expect(markdownToTelegramHtml(markdown)).to.equal(html);
        });
      }

      it('formats a word that follows snake_case text on the same line', () => {
        expect(markdownToTelegramHtml('my_var is _important_')).to.equal('my_var is <i>important</i>');
      });

      it('keeps emphasis from spanning lines', () => {
        expect(markdownToTelegramHtml('**start\nend**')).to.equal('**start\nend**');
      });

      it('keeps the underscores and stars of a bare URL as text', () => {
        expect(markdownToTelegramHtml('see https://example.com/_a_/b*c* and _this_')).to.equal('see https://example.com/_a_/b*c* and <i>this</i>');
      });

      it('does not end emphasis inside inline code', () => {
        expect(markdownToTelegramHtml('*use `a*b` here*')).to.equal('<i>use <code>a*b</code> here</i>');
      });

      it('closes the tags in order for crossed markers', () => {
        const html = markdownToTelegramHtml('**a *b** c*');
        expect(wellFormed(html)).to.equal(true);
        expect(html.replace(/<[^>]+>/g, '').replace(/\*/g, '')).to.equal('a b c');
      });
    });

    describe('links', () => {
      it('turns [text](https://…) into a link', () => {
        expect(markdownToTelegramHtml('Read [the docs](https://core.telegram.org/bots/api).')).to.equal(
          'Read <a href="https://core.telegram.org/bots/api">the docs</a>.',
        );
      });

      it('escapes quotes, ampersands and angle brackets in the address', () => {
        expect(markdownToTelegramHtml('[q](https://x.test/?a=1&b="2"&c=<3>)')).to.equal('[q](https://x.test/?a=1&amp;b="2"&amp;c=&lt;3&gt;)');
        expect(markdownToTelegramHtml('[q](https://x.test/?a=1&b="2")')).to.equal('<a href="https://x.test/?a=1&amp;b=&quot;2&quot;">q</a>');
      });

      it('keeps balanced parentheses in the address', () => {
        expect(markdownToTelegramHtml('[Foo](https://en.wikipedia.org/wiki/Foo_(bar))')).to.equal('<a href="https://en.wikipedia.org/wiki/Foo_(bar)">Foo</a>');
      });

      it('formats the link text', () => {
        expect(markdownToTelegramHtml('[**bold** link](http://a.test)')).to.equal('<a href="http://a.test"><b>bold</b> link</a>');
      });

      it('puts a link inside emphasis', () => {
        expect(markdownToTelegramHtml('**see [here](https://a.test/x_y_z)**')).to.equal('<b>see <a href="https://a.test/x_y_z">here</a></b>');
      });

      it('drops a link title, which Telegram has no place for', () => {
        expect(markdownToTelegramHtml('[t](https://a.test "Title")')).to.equal('<a href="https://a.test">t</a>');
      });

      it('turns an <https://…> autolink into a link', () => {
        expect(markdownToTelegramHtml('<https://a.test/p?q=1&r=2>')).to.equal('<a href="https://a.test/p?q=1&amp;r=2">https://a.test/p?q=1&amp;r=2</a>');
      });

      it('leaves links to anything but http(s) as text', () => {
        expect(markdownToTelegramHtml('[x](javascript:alert(1)) [y](file:///etc/passwd) [z](relative/path)')).to.equal(
          '[x](javascript:alert(1)) [y](file:///etc/passwd) [z](relative/path)',
        );
      });

      it('leaves broken or empty links as text', () => {
        expect(markdownToTelegramHtml('[no target] [open](https://a.test [](https://a.test)')).to.equal('[no target] [open](https://a.test [](https://a.test)');
      });

      it('does not nest a link in a link (CommonMark: the inner link is the link, the rest is text)', () => {
        const html = markdownToTelegramHtml('[see [inner](https://b.test)](https://a.test)');
        expect(html).to.equal('[see <a href="https://b.test">inner</a>](https://a.test)');
        expect(wellFormed(html)).to.equal(true);
      });

      it("leaves Telegram's own tg:// links as text: a reply offers no proxy settings (or any other tg:// action) behind a label", () => {
        expect(markdownToTelegramHtml('[click](tg://proxy?server=evil.example&port=443&secret=00)')).to.equal(
          '[click](tg://proxy?server=evil.example&amp;port=443&amp;secret=00)',
        );
        expect(markdownToTelegramHtml('<tg://resolve?domain=example> ![x](tg://proxy?server=evil.example)')).to.not.include('<a');
      });

      it('leaves a link whose text names another host than it opens as typed, both visible: no anchor shows one host and opens another', () => {
        const html = markdownToTelegramHtml(
          'Merged: [https://github.com/acme/repo/pull/1](https://evil.example/phish), [github.com/acme](http://evil.example) ![www.github.com](https://evil.example/i.png)',
        );
        expect(html).to.equal(
          'Merged: [https://github.com/acme/repo/pull/1](https://evil.example/phish), [github.com/acme](http://evil.example) ![www.github.com](https://evil.example/i.png)',
        );
        expect(html).not.to.contain('<a ');
      });

      for (const label of LINK_LABEL_BYPASSES) {
        it(`leaves a link whose label shows another host once rendered as typed: ${shownLabel(label)}`, () => {
          const html = markdownToTelegramHtml(`[${label}](https://evil.example/phish) ![${label}](https://evil.example/i.png)`);
          expect(html).not.to.contain('<a ');
        });
      }

      it('keeps a link whose text is words, the same URL or the same host', () => {
        expect(
          markdownToTelegramHtml(
            '[the PR](https://evil.example/p) [https://github.com/a/b/pull/1](https://github.com/a/b/pull/1) [github.com](https://github.com/a)',
          ),
        ).to.equal(
          '<a href="https://evil.example/p">the PR</a> <a href="https://github.com/a/b/pull/1">https://github.com/a/b/pull/1</a> <a href="https://github.com/a">github.com</a>',
        );
      });

      it('turns an image into a link to it, with its description as the text', () => {
        expect(markdownToTelegramHtml('![the chart](https://a.test/c.png) ![x](data:image/png;base64,AAA)')).to.equal(
          '<a href="https://a.test/c.png">the chart</a> ![x](data:image/png;base64,AAA)',
        );
      });
    });

    describe('headings', () => {
      it('turns # to ###### heading lines into bold lines', () => {
        expect(markdownToTelegramHtml('# Title\n## Section\n###### Deep')).to.equal('<b>Title</b>\n<b>Section</b>\n<b>Deep</b>');
      });

      it('formats the heading text without nesting bold in bold, and drops closing hashes', () => {
        expect(markdownToTelegramHtml('## **Step 1**: _install_ & go ##')).to.equal('<b>Step 1: <i>install</i> &amp; go</b>');
      });

      it('leaves hashtags, #-only lines and seven hashes as text', () => {
        expect(markdownToTelegramHtml('#hashtag\n#\n####### seven')).to.equal('#hashtag\n#\n####### seven');
      });

      it('leaves a # inside a code block alone', () => {
        expect(markdownToTelegramHtml('```sh\n# comment\n```')).to.equal('<pre><code class="language-sh"># comment</code></pre>');
      });
    });

    describe('quotes and lists', () => {
      it('turns a quote into a blockquote, a quote inside it into part of it', () => {
        expect(markdownToTelegramHtml('> quoted **text**\n> > inner\n\nafter')).to.equal('<blockquote>quoted <b>text</b>\ninner</blockquote>\n\nafter');
      });

      it("keeps list markers and the indentation of a list item's lines, formatting its code block", () => {
        expect(markdownToTelegramHtml('1. Install:\n   ```sh\n   npm i\n   ```\n2. Run `it`\n   - nested')).to.equal(
          '1. Install:\n   <pre><code class="language-sh">npm i</code></pre>\n2. Run <code>it</code>\n   - nested',
        );
      });

      it("keeps a task list's boxes as typed", () => {
        expect(markdownToTelegramHtml('- [ ] todo\n- [x] done')).to.equal('- [ ] todo\n- [x] done');
      });

      it('formats the cells of a table, keeping its lines', () => {
        expect(markdownToTelegramHtml('| a | b |\n|---|---|\n| **x** | <y> |')).to.equal('| a | b |\n|---|---|\n| <b>x</b> | &lt;y&gt; |');
      });
    });

    describe('a typical LLM reply', () => {
      it('converts every construct in one message into well-formed HTML', () => {
        const markdown = [
          '## Summary',
          '',
          'The **build** failed because `tsc` found *two* errors in `src/index.ts` (see [CI log](https://ci.test/run?id=7&job=2)).',
          '',
          '* Fix the `user_id` type',
          '* Remove ~~old~~ code',
          '',
          '```ts',
          'const a: number = "x" as any; // <- here & there',
          '```',
        ].join('\n');
        const html = markdownToTelegramHtml(markdown);
        expect(html).to.equal(
          [
            '<b>Summary</b>',
            '',
            'The <b>build</b> failed because <code>tsc</code> found <i>two</i> errors in <code>src/index.ts</code> (see <a href="https://ci.test/run?id=7&amp;job=2">CI log</a>).',
            '',
            '* Fix the <code>user_id</code> type',
            '* Remove <s>old</s> code',
            '',
            '<pre><code class="language-ts">const a: number = "x" as any; // &lt;- here &amp; there</code></pre>',
          ].join('\n'),
        );
        expect(wellFormed(html)).to.equal(true);
      });
    });

    describe('well-formed output for any input', () => {
      let seed = 4242;
      const random = (): number => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed / 2147483648;
      };
      const pieces = [
        'word',
        ' ',
        '\n',
        '*',
        '**',
        '_',
        '__',
        '~~',
        '`',
        '```',
        '```js\n',
        '[',
        ']',
        '(',
        ')',
        'https://a.test/x_y',
        '<',
        '>',
        '&',
        '"',
        '# ',
        '\\',
        'a_b',
        '😀',
        '> ',
        '- ',
        '1. ',
        '    ',
        '| ',
        '![',
        'tg://x',
      ];

      it('always balances its tags, never nests a tag in itself, and escapes all other < > &', () => {
        for (let round = 0; round < 1000; round++) {
          const markdown = Array.from({ length: Math.floor(random() * 80) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
          expect(wellFormed(markdownToTelegramHtml(markdown)), JSON.stringify(markdown)).to.equal(true);
        }
      });

      it('sends nesting deeper than it can follow (thousands of quote markers) as escaped text instead of failing', () => {
        const html = markdownToTelegramHtml(`${'> '.repeat(20000)}<b>x</b>`);
        expect(wellFormed(html)).to.equal(true);
        expect(html.endsWith('&lt;b&gt;x&lt;/b&gt;')).to.equal(true);
      });

      it('keeps every letter of lines full of unmatched markers, in well-formed output', () => {
        // (No time bound: timed tests fail on a loaded machine. Replies are split before they are formatted, so one input is at most a message long.)
        const hostile = `${'*a _b [c]( `d ~~e **f __g '.repeat(400)}\n${'['.repeat(4000)}`;
        const html = markdownToTelegramHtml(hostile);
        expect(wellFormed(html)).to.equal(true);
        const letters = (text: string): string => text.replace(/<[^>]+>|&[a-z]+;|[^a-g[]/g, '');
        expect(letters(html)).to.equal(letters(hostile));
      });
    });
  });
});
