/**
 * Whether a Markdown link `[text](href)` would mislead: its visible text names a web address
 * (`https://…`, `http://…`, `www.…`, `github.com/…`, `github.com`) on another host than the
 * one it opens. `[https://github.com/acme/repo/pull/1](https://evil.example/phish)` shows a
 * pull request of the repository and opens a phishing page; the model's replies and a job's
 * summary (written by the job's agent, so possibly by a hostile prompt) are Markdown, so both
 * chat adapters ask this before writing a link, and show such a link as typed instead, its text
 * and its address both visible.
 *
 * Every word of the text is looked at, not only a text that is an address as a whole (`see
 * https://github.com/x` hides the same lie). A link whose text is ordinary words stays a link,
 * and so does one whose text names the host it opens (`www.` aside, `[github.com](https://github.com/x)`).
 * A bare name ending in a common file extension (`README.md`, `main.py`) reads as a file, not a
 * host, unless it has a path after it: a coding agent links its files so, and no one takes
 * `README.md` for a web site. Text naming an address with a user part (`https://github.com@evil.example`)
 * always misleads: the host is the part after the `@`, which few readers see.
 *
 * `text` is what the reader sees (the adapters pass the label as rendered, escapes and
 * character references decoded, emphasis markers gone), and it is read as the eye reads it
 * (visibleForm): invisible format characters (zero-width spaces, joiners, soft hyphens, every
 * `\p{Cf}`) are dropped, compatibility forms folded (NFKC: full-width letters), and the
 * ideographic and full-width full stops taken for the dot they look like, so
 * `github\u200b.com` and `github\u3002com` name github.com as plainly as `github.com` does.
 */
export const isMisleadingLink = (text: string, href: string): boolean => {
  const target = hostOf(href);
  return words(visibleForm(text)).some((word) => {
    const named = namedAddress(word);
    if (named === undefined) return false;
    return named.hasUser || target === undefined || sameHost(named.host) !== sameHost(target);
  });
};

/** Full stops a reader takes for `.`: ideographic (U+3002), full-width (U+FF0E), half-width ideographic (U+FF61). */
const LOOKALIKE_FULL_STOPS = /[\u3002\uff0e\uff61]/g;

/** A text as it reads: no invisible format characters, compatibility forms folded, look-alike full stops as `.`, lower case. */
const visibleForm = (text: string): string =>
  text
    .replace(/\p{Cf}/gu, '')
    .normalize('NFKC')
    .replace(LOOKALIKE_FULL_STOPS, '.')
    .toLowerCase();

/** The words of a link's text, without the punctuation and Markdown markers around them. */
const words = (text: string): string[] =>
  text
    .split(/[\s\u00a0]+/)
    .map((word) => word.replace(/^[([{<'"*_~`]+/, '').replace(/[)\]}>'"*_~`.,;:!?]+$/, ''))
    .filter((word) => word !== '');

const SCHEME = /^https?:\/\//i;
/** A dotted host name (letters, digits, hyphens; the last label letters only), then a path, port, query or nothing. */
const BARE_HOST = /^(?:[\p{L}\p{N}-]+\.)+\p{L}{2,63}(?=[/:?#]|$)/u;
/** Extensions of files a coding agent links by name; a few are top-level domains too, none a host one types bare. */
const FILE_EXTENSIONS = new Set([
  'md',
  'txt',
  'json',
  'yml',
  'yaml',
  'toml',
  'lock',
  'ts',
  'tsx',
  'js',
  'jsx',
  'mjs',
  'cjs',
  'py',
  'rb',
  'rs',
  'go',
  'java',
  'kt',
  'sh',
  'sql',
  'html',
  'css',
  'xml',
  'csv',
  'log',
  'env',
  'cfg',
  'ini',
  'c',
  'h',
  'cpp',
  'hpp',
  'cs',
  'php',
  'swift',
  'vue',
  'svelte',
  'diff',
  'patch',
  'png',
  'jpg',
  'svg',
  'pdf',
  'zip',
]);

interface NamedAddress {
  readonly host: string;
  readonly hasUser: boolean;
}

/** The address a word of the text names, if it names one. */
const namedAddress = (word: string): NamedAddress | undefined => {
  if (SCHEME.test(word)) return parsed(word) ?? { host: word.replace(SCHEME, '').split(/[/?#]/)[0].toLowerCase(), hasUser: false };
  const bare = BARE_HOST.exec(word);
  if (bare === null) return undefined;
  const hasPath = bare[0].length < word.length;
  const lastLabel = bare[0].slice(bare[0].lastIndexOf('.') + 1).toLowerCase();
  if (!hasPath && !/^www\./i.test(word) && FILE_EXTENSIONS.has(lastLabel)) return undefined;
  return parsed(`http://${word}`);
};

const parsed = (address: string): NamedAddress | undefined => {
  if (!URL.canParse(address)) return undefined;
  const url = new URL(address);
  return { host: url.hostname, hasUser: url.username !== '' || url.password !== '' };
};

/** The host a link opens; undefined for an address without one (mailto:, tg://…). */
const hostOf = (href: string): string | undefined => {
  if (!URL.canParse(href)) return undefined;
  const host = new URL(href).hostname;
  return host === '' ? undefined : host;
};

/** A host as compared: lower case, without a trailing dot or a leading `www.`. */
const sameHost = (host: string): string =>
  host
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^www\./, '');
