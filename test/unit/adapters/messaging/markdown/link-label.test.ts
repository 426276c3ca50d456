import { expect } from 'chai';
import { Lexer, type Tokens } from 'marked';
import { misleads, visibleText } from '../../../../../src/adapters/messaging/markdown/link-label.js';

/** The one link or image a line of Markdown is. */
const linkOf = (markdown: string): Tokens.Link | Tokens.Image => {
  const [token] = Lexer.lexInline(markdown);
  expect(token.type).to.be.oneOf(['link', 'image']);
  return token as Tokens.Link | Tokens.Image;
};

describe('link-label: a link label as read, and whether it misleads', () => {
  const labels: Array<[string, string]> = [
    ['[**github**.com/o/r](https://x.example)', 'github.com/o/r'],
    ['[github\\.com](https://x.example)', 'github.com'],
    ['[github&#46;com](https://x.example)', 'github.com'],
    ['[`go.mod`](https://x.example)', 'go.mod'],
    ['[<b>github.com</b>](https://x.example)', '<b>github.com</b>'],
    ['![see:*github*.com](https://x.example/i.png)', 'see:github.com'],
  ];
  for (const [markdown, text] of labels) {
    it(`reads ${markdown} as ${text}`, () => expect(visibleText(linkOf(markdown).tokens)).to.equal(text));
  }

  const misleading: readonly string[] = [
    '[\u201cgithub.com\u201d](https://evil.example/phish)',
    '[<b>github.com</b>](https://evil.example/phish)',
    '[see:**github**.com](https://evil.example/phish)',
    '[\u2192github.com](https://evil.example/phish)',
    "[('github.com'),](https://evil.example/phish)",
    '[github.com/x?y](https://evil.example/phish)',
    '[https://github.com@evil.example](https://evil.example/phish)',
    '[github.com](https://evilgithub.com/x)',
    '[github.com](https://github.com.evil.example/x)',
    '![`github.com`/logo](https://evil.example/i.png)',
    '[github.\u0441\u043em/acme/repo/pull/1](https://evil.example/x)',
    '[**github**.c\u1d0fm](https://evil.example/x)',
    '[github\u00b7com](https://evil.example/x)',
    '[github.io](https://attacker.github.io)',
    '[s3.amazonaws.com](https://evil.s3.amazonaws.com)',
    '[docs.rs](https://evil.example)',
    '[github.\u13df\u13be\u13b7](https://evil.example)',
    '[github.\ua4da\ua4f3\ua4df](https://evil.example)',
    '[github\u2022com](https://evil.example)',
    '[acme.co\u043cpany](https://evil.example)',
  ];
  for (const markdown of misleading) {
    it(`misleads: ${markdown}`, () => {
      const link = linkOf(markdown);
      expect(misleads(link, link.href)).to.equal(true);
    });
  }

  const honest: readonly string[] = [
    '[github.com](https://api.github.com/repos/acme/repo)',
    '[example.com](https://www.example.com)',
    '[`go.mod`](https://github.com/acme/repo/blob/main/go.mod)',
    '[**package.json**](https://github.com/acme/repo/blob/main/package.json)',
    '[README.md](https://github.com/acme/repo/blob/main/README.md)',
    '[main.rs](https://github.com/acme/repo/blob/main/src/main.rs)',
    '[index.ts](https://github.com/acme/repo/blob/main/src/index.ts)',
    '[\u201cgithub.com\u201d](https://github.com/acme)',
    '[docs.rs](https://docs.rs/serde)',
    '[bbc.co.uk](https://www.bbc.co.uk/news)',
    '[\u4fee\u6539config.json\u6587\u4ef6](https://github.com/acme/repo/blob/main/config.json)',
    '[\u67e5\u770bREADME.md\u6587\u4ef6](https://github.com/acme/repo/blob/main/README.md)',
    '[\u8acb\u53c3\u8003package.json\u6a94\u6848](https://github.com/acme/repo)',
    '[\u8bbe\u7f6e\u89c1 app.ts\u4e2d](https://github.com/acme/repo/blob/main/app.ts)',
    '[\u0441\u043c. \u043a\u043e\u043d\u0444\u0438\u0433.yaml\u0444\u0430\u0439\u043b](https://github.com/acme/repo)',
  ];
  for (const markdown of honest) {
    it(`does not mislead: ${markdown}`, () => {
      const link = linkOf(markdown);
      expect(misleads(link, link.href)).to.equal(false);
    });
  }
});
