import { expect } from 'chai';
import { isMisleadingLink } from '../../../../src/domain/messaging/misleading-link.js';

describe('isMisleadingLink: a link whose text names another host than it opens', () => {
  const misleading: Array<[string, string, string]> = [
    ['a URL as text, another host as target', 'https://github.com/acme/repo/pull/1', 'https://evil.example/phish'],
    ['http as text', 'http://github.com', 'https://evil.example'],
    ['a host with a path, no scheme', 'github.com/acme/repo', 'https://evil.example'],
    ['a www. name', 'www.github.com', 'https://evil.example'],
    ['a bare host name', 'github.com', 'https://evil.example'],
    ['a URL among words', 'Pull request: https://github.com/acme/repo/pull/1', 'https://evil.example/phish'],
    ['a URL in Markdown markers and punctuation', '**(https://github.com/x).**', 'https://evil.example'],
    ['a subdomain of the named host', 'github.com/x', 'https://github.com.evil.example/x'],
    ['a target hiding its host behind a user part', 'https://github.com/x', 'https://github.com@evil.example/x'],
    ['a text hiding its host behind a user part, even one the link opens', 'https://github.com@evil.example/x', 'https://evil.example/x'],
    ['a host on a target without one', 'github.com', 'mailto:someone@evil.example'],
    ['a named file with a path under another host', 'readme.md/x', 'https://evil.example'],
    ['a zero-width space in the host', 'github.com\u200b/o/r', 'https://evil.example/phish'],
    ['a soft hyphen in the host', 'github.c\u00adom', 'https://evil.example/phish'],
    ['a word joiner after the host', 'github.com\u2060/o/r', 'https://evil.example/phish'],
    ['an ideographic full stop for the dot', 'github\u3002com/o/r', 'https://evil.example/phish'],
    ['a full-width full stop for the dot', 'github\uff0ecom/o/r', 'https://evil.example/phish'],
    ['a half-width ideographic full stop for the dot', 'github\uff61com/o/r', 'https://evil.example/phish'],
    ['full-width letters', '\uff47\uff49\uff54\uff48\uff55\uff42.com/o/r', 'https://evil.example/phish'],
    ['upper case and an invisible character in the scheme', 'HTTPS:\u200b//GitHub.com/o/r', 'https://evil.example/phish'],
  ];
  for (const [what, text, href] of misleading) {
    it(`misleads: ${what}`, () => expect(isMisleadingLink(text, href)).to.equal(true));
  }

  const ordinary: Array<[string, string, string]> = [
    ['ordinary words', 'the pull request', 'https://evil.example/phish'],
    ['the same URL', 'https://github.com/acme/repo/pull/1', 'https://github.com/acme/repo/pull/1'],
    ['another page of the same host', 'https://github.com/acme/repo', 'https://github.com/acme/repo/pull/1'],
    ['the same host, named bare', 'github.com', 'https://github.com/acme'],
    ['the same host, with www. on one side only', 'www.github.com/acme', 'https://GitHub.com./acme'],
    ['a file name', 'README.md', 'https://github.com/acme/repo/blob/main/README.md'],
    ['a library name ending in a file extension', 'the Vue.js guide', 'https://vuejs.org/guide'],
    ['a path of the repository', 'src/app.ts', 'https://github.com/acme/repo/blob/main/src/app.ts'],
    ['abbreviations and version numbers', 'e.g. v1.2.3, see 3.14', 'https://x.example'],
    ['an e-mail address', 'someone@github.com', 'mailto:someone@github.com'],
    ['the same host, with an invisible character', 'github.com\u200b/acme', 'https://github.com/acme'],
    ['a file name with a soft hyphen', 'READ\u00adME.md', 'https://github.com/acme/repo/blob/main/README.md'],
  ];
  for (const [what, text, href] of ordinary) {
    it(`does not mislead: ${what}`, () => expect(isMisleadingLink(text, href)).to.equal(false));
  }
});
