import { expect } from 'chai';
import { escapeSlack, markdownToMrkdwn } from '../../../../../src/adapters/messaging/slack/slack-mrkdwn.js';
import { escapeHtml, markdownToTelegramHtml } from '../../../../../src/adapters/messaging/telegram/telegram-html.js';
import { markdownLiteral } from '../../../../../src/domain/messaging/markdown-literal.js';

/** Text of another's that the gateway puts in its own lines: each must show as typed, no part of it formatted or linked. */
const HOSTILE = [
  'hook.[Re-authorize the gateway](https://evil.example/login).command',
  '[Your session expired - sign in again](https://evil.example/signin)',
  '<https://evil.example/a> <b>bold</b> &lt;i&gt; &#60;a&#62;',
  '![logo](https://evil.example/x.png) [label][ref] [ref]: https://evil.example',
  '**bold** __b__ *i* _i_ ~~s~~ ~s~ `code` ``two``',
  '# heading',
  '> quote',
  '- item',
  '+ item',
  '* item',
  '1. item',
  '2) item',
  '---',
  '===',
  '| a | b |',
  '```js',
  '\\[escaped\\](https://evil.example) \\\\',
  'job/60000000-0000-4000-8000-000000000001 https://github.com/acme/repo/pull/7 a@b.example www.evil.example',
];

const PIECES = [...' abc1.-/:@\\`*_~[]()<>&!#|{}+="\';?%$^,\t', 'https://', 'ftp://', 'www.', 'WWW.', 'a@b.co', '](', '&amp;', '&#60;'];

/** A pseudo-random generator with a fixed seed: the same strings on every run. */
const random = (() => {
  let state = 7;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
})();

describe('markdownLiteral: text of another shows as typed in the chat formatters', () => {
  for (const [name, render, escaped] of [
    ['Telegram HTML', markdownToTelegramHtml, escapeHtml],
    ['Slack mrkdwn', markdownToMrkdwn, escapeSlack],
  ] as const) {
    describe(name, () => {
      it("shows links, emphasis, code, HTML, references, headings, lists, quotes and tables as typed, on a line of its own or after the gateway's words", () => {
        for (const text of HOSTILE) {
          expect(render(markdownLiteral(text)), text).to.equal(escaped(text));
          expect(render(`Error: ${markdownLiteral(text)}`), text).to.equal(`Error: ${escaped(text)}`);
        }
      });

      it('writes no link for a hostile git config key or file name', () => {
        const shown = render(`Error: ${markdownLiteral(HOSTILE[0])}\n(I could not read a file "${markdownLiteral(HOSTILE[1])}".)`);
        expect(shown).to.not.match(/<a |<https?:/);
        expect(shown).to.include('[Re-authorize the gateway](https://evil.example/login)');
      });

      it("shows any text of ASCII punctuation after the gateway's words as typed (2 000 random strings, addresses among them)", () => {
        for (let round = 0; round < 2000; round++) {
          const text = Array.from({ length: 1 + Math.floor(random() * 30) }, () => PIECES[Math.floor(random() * PIECES.length)]).join('');
          expect(render(`Error: ${markdownLiteral(text)}.`), JSON.stringify(text)).to.equal(`Error: ${escaped(text)}.`);
        }
      });
    });
  }

  it('leaves ids, branches and addresses readable in the Markdown itself', () => {
    expect(markdownLiteral('job/60000000-0000-4000-8000-000000000001')).to.equal('job/60000000-0000-4000-8000-000000000001');
    expect(markdownLiteral('fix/login-page: 1.5 MB, a@b.example')).to.equal('fix/login-page: 1.5 MB, a@b.example');
  });
});
