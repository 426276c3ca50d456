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
    // Whatever stands around the host name: the text is scanned for host names, not split on spaces.
    ['curly double quotes around the host', '\u201cgithub.com\u201d', 'https://evil.example/phish'],
    ['curly single quotes around the host', '\u2018github.com\u2019/o/r', 'https://evil.example/phish'],
    ['straight single quotes around the host', "'github.com'", 'https://evil.example/phish'],
    ['guillemets around the host', '\u00abgithub.com\u00bb', 'https://evil.example/phish'],
    ['HTML tags around the host, shown as typed', '<b>github.com</b>', 'https://evil.example/phish'],
    ['a colon before the host', 'see:github.com', 'https://evil.example/phish'],
    ['an arrow before the host', '\u2192github.com', 'https://evil.example/phish'],
    ['an equals sign before the host', 'repo=github.com/o/r', 'https://evil.example/phish'],
    ['a pipe between words and the host', 'PR|github.com/o/r/pull/1', 'https://evil.example/phish'],
    ['parentheses around the host', '(github.com)', 'https://evil.example/phish'],
    ['brackets and braces around the host', '[{github.com}]', 'https://evil.example/phish'],
    ['a comma after the host', 'github.com, the repository', 'https://evil.example/phish'],
    ['an ellipsis after the host', 'github.com\u2026', 'https://evil.example/phish'],
    ['hyphens after the host', 'github.com--', 'https://evil.example/phish'],
    ['a host with a path and a query', 'github.com/x?y', 'https://evil.example/phish'],
    ['a host with only a query', 'github.com?tab=readme', 'https://evil.example/phish'],
    ['a host with only a fragment', 'github.com#readme', 'https://evil.example/phish'],
    ['a host with a port', 'github.com:443/o/r', 'https://evil.example/phish'],
    ['a host after a leading slash', '/github.com/o/r', 'https://evil.example/phish'],
    ['a protocol-relative address', '//github.com/o/r', 'https://evil.example/phish'],
    ['a scheme without slashes', 'https:github.com/o/r', 'https://evil.example/phish'],
    ['a scheme with backslashes', 'https:\\\\github.com\\o', 'https://evil.example/phish'],
    ['a second host among the words, one of them opened', 'github.com or evil.example', 'https://evil.example/phish'],
    ['a host whose name ends in the named one, not at a label boundary', 'github.com', 'https://evilgithub.com/x'],
    ['a host whose name starts with the named one', 'github.com', 'https://github.com.evil.example/x'],
    ['a subdomain named, its parent opened', 'api.github.com', 'https://github.com/x'],
    ['a www. host on another domain', 'www.github.com', 'https://www.evil.example/x'],
    ['a www. host on a TLD outside the list', 'www.acme.engineering', 'https://evil.example/phish'],
    ['an address with a scheme on a TLD outside the list', 'https://acme.engineering/login', 'https://evil.example/phish'],
    ['localhost with a scheme', 'http://localhost:3000/admin', 'https://evil.example/phish'],
    ['an IP address with a scheme', 'http://10.0.0.1/admin', 'https://evil.example/phish'],
    ['a country-code host', 'allegro.pl', 'https://evil.example/phish'],
    ['an internationalised host', '\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444', 'https://evil.example/phish'],
    ['a look-alike of the opened host in the text (Cyrillic i)', 'g\u0456thub.com', 'https://github.com/x'],
    ['a look-alike of the named host as the target (accented i)', 'github.com', 'https://g\u00edthub.com/x'],
    ['a file-like name whose stem is a host', 'github.com.md', 'https://evil.example/phish'],
    ['a host name as a path segment', 'mirrors/github.com/acme', 'https://mirror.example/mirrors/github.com/acme'],
    ['a host name after a word and a slash', 'PR/github.com/o/r/pull/1', 'https://evil.example/phish'],
    ['an e-mail-like text whose local part is a host', 'github.com@evil.example/login', 'https://evil.example/login'],
    ['an e-mail address at the named host, a web page elsewhere', 'someone@github.com', 'https://evil.example/phish'],
    ['an e-mail address at the named host, a mail to another', 'someone@github.com', 'mailto:someone@evil.example'],
    // A user part: the host is after the `@`, which few readers see.
    ['a user part after a scheme, in upper case', 'HTTPS://GITHUB.COM@evil.example', 'https://evil.example/phish'],
    ['a user and password, even before the host the link opens', 'https://user:secret@github.com/x', 'https://github.com/x'],
    ['a user part in a protocol-relative address', '//github.com@evil.example/x', 'https://evil.example/x'],
    [
      'a user part behind division slashes (the .zip trick)',
      'https://github.com\u2215kubernetes\u2215kubernetes\u2215archive\u2215refs\u2215tags\u2215@v1271.zip',
      'https://v1271.zip',
    ],
    ['a user part among words', 'see https://github.com@evil.example', 'https://evil.example'],
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
    // The named host is the opened one's parent domain.
    ['a parent domain of the opened host', 'github.com', 'https://api.github.com/repos/acme/repo'],
    ['a parent domain of the www. host', 'example.com', 'https://www.example.com'],
    ['a www. name of the bare host', 'www.example.com', 'https://example.com/x'],
    ['an address on the parent domain', 'https://github.com/acme', 'https://gist.github.com/acme/1'],
    ['a parent domain, the opened host with a port', 'example.com', 'https://docs.example.com:8443/x'],
    ['a parent domain in punctuation and quotes', '\u201c(github.com)\u201d, see', 'https://api.github.com/x'],
    ['an internationalised host, the same one opened', 'b\u00fccher.de', 'https://xn--bcher-kva.de/'],
    // File names, versions and code: not hosts.
    ['go.mod', 'go.mod', 'https://github.com/acme/repo/blob/main/go.mod'],
    ['package.json', 'package.json', 'https://github.com/acme/repo/blob/main/package.json'],
    ['main.rs', 'main.rs', 'https://github.com/acme/repo/blob/main/src/main.rs'],
    ['index.ts', 'index.ts', 'https://github.com/acme/repo/blob/main/src/index.ts'],
    ['setup.py and install.sh', 'setup.py and install.sh', 'https://github.com/acme/repo/tree/main'],
    ['a zip and a video', 'v1.2.3.zip, demo.mov', 'https://github.com/acme/repo/releases'],
    ['Terraform and Make files', 'main.tf, rules.mk', 'https://github.com/acme/repo/tree/main'],
    ['a translated README', 'README.de.md', 'https://github.com/acme/repo/blob/main/README.de.md'],
    ['a file name in quotes and parentheses', '(\u201cREADME.md\u201d)', 'https://github.com/acme/repo/blob/main/README.md'],
    ['a file name with a line number', 'README.md:10', 'https://github.com/acme/repo/blob/main/README.md#L10'],
    [
      'a host name in a vendored path of the host it names',
      'vendor/github.com/pkg/errors',
      'https://github.com/acme/repo/tree/main/vendor/github.com/pkg/errors',
    ],
    ['an e-mail address whose local part ends in a country code', 'wei.li@example.com', 'mailto:wei.li@example.com'],
    ['code identifiers', 'pd.to_datetime, subprocess.run, requests.post, user.name, os.path.join', 'https://docs.python.org/3/'],
    ['an IP-like version number', '1.2.3.4', 'https://github.com/acme/repo/releases/tag/1.2.3.4'],
    ['prose with an ideographic full stop', '\u5b89\u88c5\u8bf4\u660e\u3002\u8bf7\u770b', 'https://example.com/docs'],
    // A host's own address, whatever its path or query says.
    ['another host in the query of the opened address', 'github.com/login?next=evil.example', 'https://github.com/login?next=evil.example'],
    ['another host in the query of an address with a scheme', 'https://github.com/login?next=evil.example', 'https://github.com/login?next=evil.example'],
    ['localhost, opened', 'http://localhost:3000/x', 'http://localhost:3000/x'],
    ['an e-mail address with a dotted local part', 'Anna.Smith@github.com', 'mailto:anna.smith@github.com'],
    ['an e-mail address among several recipients', 'a@x.example or b@github.com', 'mailto:a@x.example,b@github.com'],
  ];
  for (const [what, text, href] of ordinary) {
    it(`does not mislead: ${what}`, () => expect(isMisleadingLink(text, href)).to.equal(false));
  }

  it('reads a long text in linear time: no pattern backtracks over a run once for each of its characters', () => {
    const texts = ['a'.repeat(50_000), 'a-'.repeat(25_000), `a${'-'.repeat(50_000)}b`, `${'a'.repeat(50_000)}:/`, 'ab.cd '.repeat(10_000)];
    const started = performance.now();
    for (const text of texts) isMisleadingLink(text, 'https://x.example');
    expect(performance.now() - started).to.be.below(1000);
  });
});
