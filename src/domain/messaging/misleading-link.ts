/**
 * Whether a Markdown link `[text](href)` would mislead: its visible text names a web host
 * (`https://…`, `//…`, `www.…`, `github.com/…`, `github.com`, an e-mail address's domain) that is
 * not the host it opens nor a parent domain of it. `[https://github.com/acme/repo/pull/1](https://evil.example/phish)`
 * shows a pull request of the repository and opens a phishing page; the model's replies and a
 * job's summary (written by the job's agent, so possibly by a hostile prompt) are Markdown, so
 * both chat adapters ask this before writing a link, and show such a link as typed instead, its
 * text and its address both visible.
 *
 * `text` is what the reader sees (the adapters pass the label as rendered, escapes and
 * character references decoded, emphasis markers gone), and it is read as the eye reads it
 * (visibleForm): invisible format characters (zero-width spaces, joiners, soft hyphens, every
 * `\p{Cf}`) are dropped, compatibility forms folded (NFKC: full-width letters), and the
 * ideographic and full-width full stops, the middle dots and the other dots of
 * LOOKALIKE_FULL_STOPS taken for the dot they look like, so `github\u200b.com`,
 * `github\u3002com` and `github\u00b7com` name github.com as plainly as `github.com` does.
 *
 * The whole text is scanned for host names, whatever stands around them (`see:github.com`,
 * `“github.com”`, `<b>github.com</b>`, `→github.com`, `(github.com),`): a host name is a run of
 * dot-separated labels (letters, marks, digits, inner hyphens and underscores). A run names a host
 *  - after a scheme (`https://`, any host, also `localhost`) or `//`, or when it starts with `www.`;
 *  - otherwise when its last label is a top-level domain of TOP_LEVEL_DOMAINS, a compact list:
 *    versions (`v1.2.3`), abbreviations (`e.g.`), libraries (`Vue.js`) and most file names
 *    (`go.mod`, `package.json`, `index.ts`) end in no TLD, so they name none. A last label
 *    outside ASCII that looks like a listed TLD, each of its letters ASCII or a Latin look-alike
 *    (`github.соm` in Cyrillic, `github.cᴏm`, `acme.coмpany`, `github.ᏟᎾᎷ` in Cherokee), is read as
 *    the TLD it looks like (readsAs); a file name run into prose (`修改config.json文件`) is none;
 *  - or when it is one of the few WELL_KNOWN_HOSTS on a file extension's TLD (`docs.rs`, `brew.sh`).
 * A host name in a path is still one (`mirrors/github.com/x` reads as github.com's). Not hosts:
 * an address's path and query after its host (`github.com/login?next=x.example`), an e-mail's
 * local part unless it ends in a generic TLD (`wei.li@`, but not `github.com@`), and a file
 * name: a run ending in an extension of FILE_EXTENSIONS that is a TLD too (`README.md`,
 * `main.rs`, `setup.py`, `install.sh`, `v2.zip`, `demo.mov`; Moldova, Serbia, Paraguay, St
 * Helena…), without a path after it (`readme.md/x` is a host) and unless its stem ends in a
 * generic TLD (`github.com.md` names github.com.md). So a bare `install.sh` is taken for a script:
 * a coding agent names its files far more often than such hosts.
 *
 * A named host is honest when the link opens it or one of its subdomains, `www.` aside, label by
 * label: `[github.com](https://api.github.com/x)` and `[example.com](https://www.example.com)`
 * stay links, `[github.com](https://evilgithub.com)` and `[github.com](https://github.com.evil.example)`
 * do not. A domain whose subdomains are others' sites is no parent (isSharedSuffix):
 * `[github.io](https://attacker.github.io)` and `[co.uk](https://evil.co.uk)` mislead. A `mailto:`
 * link opens its recipients' domains. A text whose address has a user part
 * (`https://github.com@evil.example`, `//github.com@evil.example`) always misleads: the host is
 * the part after the `@`, which few readers see.
 */
export const isMisleadingLink = (text: string, href: string): boolean => {
  const named = namedHosts(visibleForm(text));
  if (named === USER_PART) return true;
  const targets = targetHosts(href);
  return named.some((host) => !targets.some((target) => within(target, host)));
};

/**
 * Dots a reader takes for `.` in a host name, as they stand after NFKC (which already folds the
 * one dot leader U+2024, the small full stop U+FE52 and the full-width full stop U+FF0E to `.`,
 * the Greek ano teleia U+0387 to U+00B7, the half-width katakana middle dot U+FF65 to U+30FB):
 * ideographic (U+3002), full-width (U+FF0E) and half-width ideographic (U+FF61) full stops, the
 * middle dot (U+00B7), the Syriac supralinear and sublinear full stops (U+0701, U+0702), the
 * Canadian syllabics final middle dot (U+1427), the runic single punctuation (U+16EB), the
 * hyphenation point (U+2027), the bullet and dot operators (U+2219, U+22C5), the word separator
 * middle dot and raised dot (U+2E31, U+2E33), the katakana middle dot (U+30FB), the Lisu
 * tone mark that is a dot (U+A4F8), the Latin sinological dot (U+A78F), the Vai full stop
 * (U+A60E), the Kharoshthi punctuation dot (U+10A50), the bullet (U+2022), the ring point
 * (U+2E30), the Aegean word separator dot (U+10101), the Z notation spot (U+2981) and the Tibetan
 * intersyllabic tsheg (U+0F0B). Prose keeps reading as prose: `col·lecció`, `ジョン・スミス`
 * end in no TLD. The Arabic-Indic digit zeros (U+0660, U+06F0) look like dots too but are left
 * out: taken for `.`, they would cut Arabic and Persian numbers (`٢٠٢٥`) into dotted runs.
 */
const LOOKALIKE_FULL_STOPS =
  /[\u3002\uff0e\uff61\u00b7\u0701\u0702\u1427\u16eb\u2027\u2219\u22c5\u2e31\u2e33\u30fb\ua4f8\ua78f\ua60e\u{10a50}\u2022\u2e30\u{10101}\u2981\u0f0b]/gu;

/** A text as it reads: no invisible format characters, compatibility forms folded, look-alike full stops as `.`, lower case. */
const visibleForm = (text: string): string =>
  text
    .replace(/\p{Cf}/gu, '')
    .normalize('NFKC')
    .replace(LOOKALIKE_FULL_STOPS, '.')
    .toLowerCase();

/** Where an address typed in text ends: at white space, angle brackets, quotes or a back-tick. */
const ADDRESS_REST = '[^\\s<>"\'`\\u00ab\\u00bb\\u2018\\u2019\\u201c\\u201d]*';
/**
 * An address with a scheme, as typed (no `.` in the scheme, so `github.com.https://x` keeps its
 * github.com). Each pattern here starts only where its run starts (the look-behinds), so a long
 * run of letters is read once, not once for each of its letters.
 */
const SCHEMED_ADDRESS = new RegExp(`(?<![a-z\\d+-])[a-z][a-z\\d+-]*:\\/\\/${ADDRESS_REST}`, 'gu');
const LABEL = '[\\p{L}\\p{M}\\p{N}_-]+';
/** A run of two or more dot-separated labels: a host name, a file name, a version, an identifier… (its ends' `-` and `_` trimmed: trimmedRun) */
const DOTTED_RUN = new RegExp(`(?<![\\p{L}\\p{M}\\p{N}_-])${LABEL}(?:\\.${LABEL})+`, 'gu');

const USER_PART = Symbol('user part');

/** The hosts a text names, or USER_PART when it names an address with a user part. */
const namedHosts = (text: string): string[] | typeof USER_PART => {
  const hosts: string[] = [];
  for (const [address] of text.matchAll(SCHEMED_ADDRESS)) {
    const authority = address.slice(address.indexOf('://') + 3).split(/[/?#\\]/)[0];
    if (authority.includes('@')) return USER_PART;
    const host = authority.startsWith('[') ? authority.slice(0, authority.indexOf(']') + 1) : authority.split(':')[0];
    if (host !== '') hosts.push(host);
  }
  // The addresses with a scheme are done: blanked, so their path and query name nothing more.
  const rest = text.replace(SCHEMED_ADDRESS, (address) => ' '.repeat(address.length));
  const addressEnd = new RegExp(ADDRESS_REST, 'uy');
  DOTTED_RUN.lastIndex = 0;
  for (let match = DOTTED_RUN.exec(rest); match !== null; match = DOTTED_RUN.exec(rest)) {
    const [start, end] = trimmedRun(match[0], match.index);
    const run = rest.slice(start, end);
    if (run.split('.').some((label) => label === '')) continue;
    const before = rest.slice(Math.max(0, start - 2), start);
    const after = rest[end] ?? '';
    const afterSlashes = before === '//' || before === '\\\\';
    const labels = run.split('.');
    if (after === '@') {
      // A user part (`//github.com@evil.example`), or an e-mail's local part: a host only when it reads as one (`github.com@…`, not `wei.li@…`).
      if (afterSlashes) return USER_PART;
      if (isGenericTopLevelDomain(labels[labels.length - 1])) hosts.push(run);
      continue;
    }
    if (!afterSlashes && !run.startsWith('www.') && !namesHost(labels, after, before.endsWith('@'))) continue;
    hosts.push(run);
    if (/[/?#\\]/.test(after)) {
      addressEnd.lastIndex = end;
      addressEnd.exec(rest);
      DOTTED_RUN.lastIndex = Math.max(addressEnd.lastIndex, end);
    }
  }
  return hosts;
};

/** Where a dotted run is without the hyphens and underscores at its ends (`_github.com_` is github.com). */
const trimmedRun = (run: string, index: number): [number, number] => {
  let start = 0;
  let end = run.length;
  while (start < end && (run[start] === '-' || run[start] === '_')) start += 1;
  while (end > start && (run[end - 1] === '-' || run[end - 1] === '_')) end -= 1;
  return [index + start, index + end];
};

/** Whether a dotted run without a scheme or `www.` names a host: its last label a TLD, and it no file name. */
const namesHost = (labels: readonly string[], after: string, emailDomain: boolean): boolean => {
  const run = labels.join('.');
  if (WELL_KNOWN_HOSTS.some((host) => run === host || run.endsWith(`.${host}`))) return true;
  const last = labels[labels.length - 1];
  if (!isTopLevelDomain(last)) return false;
  if (emailDomain || after === '/' || !FILE_EXTENSIONS.has(last)) return true;
  return labels.length > 2 && isGenericTopLevelDomain(labels[labels.length - 2]);
};

const isTopLevelDomain = (label: string): boolean => readsAs(label) !== undefined;
/** A TLD that is no country code nor file extension (`com`, `org`, `dev`): what ends a host name in a reader's eye, even inside a file or e-mail name. */
const isGenericTopLevelDomain = (label: string): boolean => {
  const tld = readsAs(label);
  return tld !== undefined && tld.length > 2 && !FILE_EXTENSIONS.has(tld);
};

/**
 * The top-level domain a last label reads as, or undefined when it reads as none: itself when
 * listed (also an internationalised one as it reads, `рф`) or in IDNA's ASCII form (`xn--…`);
 * otherwise, for a label with a character outside ASCII, the listed ASCII TLD it looks like
 * (`соm` in Cyrillic, `іо`, `cᴏm` with a small capital, `cóm`, `coмpany` mixing scripts: see
 * lookalikeOf). NFKC folds none of these, and a reader takes `github.соm` for github.com. A label
 * with a letter that looks like no Latin one reads as no TLD, so neither prose (`安装说明.请看`)
 * nor a file name run into it (`修改config.json文件`, `конфиг.yamlфайл`) names a host.
 */
const readsAs = (label: string): string | undefined => {
  if (TOP_LEVEL_DOMAINS.has(label) || label.startsWith('xn--')) return label;
  if (/^[\x00-\x7f]*$/.test(label)) return undefined;
  return lookalikeOf(label);
};

/** The listed ASCII TLD a label looks like, letter for letter, its accents aside, or undefined. */
const lookalikeOf = (label: string): string | undefined => {
  const letters = [...label.normalize('NFD').replace(/\p{M}/gu, '')];
  const readings = letters.map((letter) => (/^[a-z\d]$/.test(letter) ? letter : (LATIN_LOOKALIKES[letter] ?? '')));
  if (readings.includes('')) return undefined;
  return ASCII_TOP_LEVEL_DOMAINS.find((tld) => tld.length === readings.length && [...tld].every((letter, index) => readings[index].includes(letter)));
};

/**
 * Letters that read as Latin ones: Cyrillic, Greek, Armenian, Cherokee, Lisu, Coptic, and Latin
 * letters outside ASCII that no accent-stripping brings back to it (dotless i, small capitals).
 * Each maps to the letters it can be taken for. A small choice of Unicode's confusables
 * (https://www.unicode.org/Public/security/latest/confusables.txt), enough for the top-level
 * domains of TOP_LEVEL_DOMAINS. A text is compared lower-cased, so each letter is keyed here by its
 * lower case (`М`, `Н` as `м`, `н`; a Cherokee capital `Ꮯ` as its small letter `ꮯ`, which looks
 * alike), whichever case it is written in.
 */
const LATIN_LOOKALIKES: Readonly<Record<string, string>> = lowerCased({
  // Cyrillic.
  а: 'a',
  в: 'b',
  г: 'r',
  е: 'e',
  з: '3',
  і: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  п: 'n',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ь: 'b',
  ѕ: 's',
  һ: 'h',
  ӏ: 'l',
  ү: 'y',
  ԁ: 'd',
  ԍ: 'g',
  ԛ: 'q',
  ԝ: 'w',
  // Greek.
  α: 'a',
  β: 'b',
  γ: 'y',
  ε: 'e',
  ζ: 'z',
  η: 'hn',
  ι: 'il',
  κ: 'k',
  μ: 'mu',
  ν: 'vn',
  ο: 'o',
  π: 'n',
  ρ: 'p',
  σ: 'o',
  ς: 'c',
  τ: 't',
  υ: 'uy',
  χ: 'x',
  ω: 'w',
  ϲ: 'c',
  ϳ: 'j',
  // Armenian.
  հ: 'h',
  ո: 'n',
  ս: 'u',
  ց: 'g',
  զ: 'q',
  օ: 'o',
  // Latin outside ASCII: dotless letters, IPA, small capitals.
  ı: 'i',
  ȷ: 'j',
  ɑ: 'a',
  ɡ: 'g',
  ɩ: 'i',
  ƅ: 'b',
  ł: 'l',
  ø: 'o',
  đ: 'd',
  ħ: 'h',
  ᴀ: 'a',
  ʙ: 'b',
  ᴄ: 'c',
  ᴅ: 'd',
  ᴇ: 'e',
  ꜰ: 'f',
  ɢ: 'g',
  ʜ: 'h',
  ɪ: 'i',
  ᴊ: 'j',
  ᴋ: 'k',
  ʟ: 'l',
  ᴍ: 'm',
  ɴ: 'n',
  ᴏ: 'o',
  ᴘ: 'p',
  ʀ: 'r',
  ꜱ: 's',
  ᴛ: 't',
  ᴜ: 'u',
  ᴠ: 'v',
  ᴡ: 'w',
  ʏ: 'y',
  ᴢ: 'z',
  // Cherokee, written in capitals (keyed by their small letters, which a capital lowers to).
  Ꭰ: 'd',
  Ꭱ: 'r',
  Ꭲ: 't',
  Ꭵ: 'i',
  Ꭹ: 'y',
  Ꭺ: 'a',
  Ꭻ: 'j',
  Ꭼ: 'e',
  Ꮃ: 'w',
  Ꮇ: 'm',
  Ꮋ: 'h',
  Ꮍ: 'y',
  Ꮎ: 'o',
  Ꮐ: 'g',
  Ꮒ: 'h',
  Ꮓ: 'z',
  Ꮟ: 'b',
  Ꮢ: 'r',
  Ꮤ: 'w',
  Ꮥ: 's',
  Ꮩ: 'v',
  Ꮪ: 's',
  Ꮮ: 'l',
  Ꮯ: 'c',
  Ꮲ: 'p',
  Ꮶ: 'k',
  Ꮷ: 'd',
  Ᏻ: 'g',
  Ᏼ: 'b',
  ꮁ: 'r',
  // Lisu (no case).
  ꓐ: 'b',
  ꓑ: 'p',
  ꓒ: 'd',
  ꓓ: 'd',
  ꓔ: 't',
  ꓖ: 'g',
  ꓗ: 'k',
  ꓙ: 'j',
  ꓚ: 'c',
  ꓜ: 'z',
  ꓝ: 'f',
  ꓟ: 'm',
  ꓠ: 'n',
  ꓡ: 'l',
  ꓢ: 's',
  ꓣ: 'r',
  ꓦ: 'v',
  ꓧ: 'h',
  ꓪ: 'w',
  ꓫ: 'x',
  ꓬ: 'y',
  ꓮ: 'a',
  ꓰ: 'e',
  ꓲ: 'il',
  ꓳ: 'o',
  ꓴ: 'u',
  // Coptic, written in capitals.
  Ⲁ: 'a',
  Ⲃ: 'b',
  Ⲉ: 'e',
  Ⲍ: 'z',
  Ⲏ: 'h',
  Ⲓ: 'il',
  Ⲕ: 'k',
  Ⲙ: 'm',
  Ⲛ: 'n',
  Ⲟ: 'o',
  Ⲣ: 'p',
  Ⲥ: 'c',
  Ⲧ: 't',
  Ⲩ: 'y',
  Ⲭ: 'x',
});

/** A table of look-alikes keyed by each letter's lower case, the readings of letters lowering to the same one joined. */
function lowerCased(table: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  const lowered: Record<string, string> = {};
  for (const [letter, reading] of Object.entries(table)) {
    const key = letter.toLowerCase();
    lowered[key] = (lowered[key] ?? '') + reading;
  }
  return lowered;
}

/**
 * Hosts on a TLD of FILE_EXTENSIONS that a reader knows as sites, not files (the Rust
 * documentation and installer, Homebrew, Bun): named, they are hosts, with or without a path.
 * Kept tiny: every name here is a file name no longer (`lib.rs` is left out: a Rust crate's root).
 */
const WELL_KNOWN_HOSTS: readonly string[] = ['docs.rs', 'rustup.rs', 'brew.sh', 'bun.sh'];

/** The hosts a link opens: its host, a `mailto:` link's recipients' domains; none for an address without one (tel:, tg://…). */
const targetHosts = (href: string): string[] => {
  if (!URL.canParse(href)) return [];
  const url = new URL(href);
  if (url.protocol === 'mailto:') {
    return url.pathname
      .split(',')
      .filter((recipient) => recipient.includes('@'))
      .map((recipient) => recipient.slice(recipient.lastIndexOf('@') + 1));
  }
  return url.hostname === '' ? [] : [url.hostname];
};

/** Whether `target` is the host `named` or one of its subdomains, `www.` and a trailing dot aside. */
const within = (target: string, named: string): boolean => {
  const opened = comparable(target);
  const shown = comparable(named);
  if (opened === shown) return true;
  const topLabel = opened.slice(opened.lastIndexOf('.') + 1);
  return shown.includes('.') && !/^\d*$/.test(topLabel) && !isSharedSuffix(shown) && opened.endsWith(`.${shown}`);
};

/**
 * Whether a domain's subdomains belong to others than it does, so that it is no parent vouching
 * for them: a shared-hosting domain (`github.io`, `vercel.app`; all of `amazonaws.com`, whose
 * buckets' names have dots), or a second level under a country code (`co.uk`, `com.au`, `gov.br`).
 * `[github.io](https://attacker.github.io)` misleads.
 */
const isSharedSuffix = (domain: string): boolean => {
  if (SHARED_HOSTING.has(domain) || domain.endsWith('.amazonaws.com')) return true;
  const labels = domain.split('.');
  return labels.length === 2 && COUNTRY_SECOND_LEVELS.has(labels[0]) && /^[a-z]{2}$/.test(labels[1]);
};

/** Domains under which anyone may have a site (from the public suffix list's private section, https://publicsuffix.org/list/). */
const SHARED_HOSTING: ReadonlySet<string> = new Set(
  [
    'github.io gitlab.io pages.dev workers.dev vercel.app netlify.app herokuapp.com blogspot.com s3.amazonaws.com',
    'amazonaws.com cloudfront.net azurewebsites.net web.app firebaseapp.com appspot.com onrender.com fly.dev',
    'glitch.me repl.co replit.app surge.sh ngrok.io ngrok-free.app trycloudflare.com',
  ]
    .join(' ')
    .split(' '),
);

/** Second-level domains under a country code that registries sell names under (`co.uk`, `com.au`, `ac.jp`, `gov.br`). */
const COUNTRY_SECOND_LEVELS: ReadonlySet<string> = new Set('co com org net ac gov edu ne or go gob gouv mil nic ltd plc sch nom'.split(' '));

/** A host as compared: as a URL has it (lower case, IDNA's ASCII form), without a trailing dot or a leading `www.`. */
const comparable = (host: string): string => {
  const address = `http://${host}/`;
  const hostname = URL.canParse(address) ? new URL(address).hostname : host.toLowerCase();
  return hostname.replace(/\.$/, '').replace(/^www\.(?=[^.]+\.)/, '');
};

/**
 * File extensions a coding agent links by name that are top-level domains too (Markdown,
 * Rust, Python, shell, Perl modules, C++, OCaml, Objective-C++, Terraform, make, autotools,
 * SystemVerilog, Java, archives, videos). Country codes that are big web domains (`.pl`, `.in`,
 * `.ru`, `.so`, `.ai`) are left out although files end so too: a link named `requirements.in` to
 * another host is shown as text, harmlessly.
 */
const FILE_EXTENSIONS: ReadonlySet<string> = new Set('md rs py sh pm cc ml mm tf mk ac am sv java zip mov'.split(' '));

/**
 * Top-level domains, from IANA's root zone list (https://data.iana.org/TLD/tlds-alpha-by-domain.txt,
 * version 2026051600): every country code (ASCII, and the internationalised ones as they read),
 * the original generic TLDs, and a choice of the new generic ones most used for web sites. Left
 * out are the generic ones that read as code rather than hosts (`subprocess.run`,
 * `requests.post`, `user.name`, `match.group`, `hello.world`, `google.cloud`) and brands; a host
 * on one of them counts when written with a scheme, `//` or `www.`.
 */
const TOP_LEVEL_DOMAINS: ReadonlySet<string> = new Set(
  [
    // Country codes.
    'ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo br bs bt bv bw by bz',
    'ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg er es et eu fi fj fk fm',
    'fo fr ga gb gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu id ie il im in io iq ir is',
    'it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la lb lc li lk lr ls lt lu lv ly ma mc md me mg mh mk ml mm',
    'mn mo mp mq mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn pr',
    'ps pt pw py qa re ro rs ru rw sa sb sc sd se sg sh si sj sk sl sm sn so sr ss st su sv sx sy sz tc td tf tg',
    'th tj tk tl tm tn to tr tt tv tw tz ua ug uk us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw',
    'рф срб бг бел мкд ею қаз укр мон 中国 中國 香港 台湾 台灣 澳門 新加坡 한국 ไทย ລາວ ישראל ایران امارات السعودية مصر قطر',
    'عمان الجزائر تونس المغرب الاردن البحرين سورية عراق فلسطين سودان موريتانيا مليسيا پاکستان بھارت بارت ڀارت ಭಾರತ ଭାରତ',
    'ভাৰত ভারত বাংলা భారత్ ලංකා ભારત भारतम् भारत भारोत ഭാരതം ਭਾਰਤ இலங்கை இந்தியா சிங்கப்பூர் հայ გე ελ ευ',
    // The original generic ones.
    'com net org edu gov mil int info biz pro aero asia cat coop mobi museum travel xxx',
    // New generic ones, much used for web sites.
    'app dev xyz top shop online site store club icu vip live tech blog space website fun news art design agency',
    'digital solutions software systems company ltd studio team social ninja guru wiki lol rocks hosting bank',
    'finance money best life today gle zip mov',
  ]
    .join(' ')
    .split(' '),
);

/** The ASCII ones of TOP_LEVEL_DOMAINS, which a look-alike label is compared with. */
const ASCII_TOP_LEVEL_DOMAINS: readonly string[] = [...TOP_LEVEL_DOMAINS].filter((tld) => /^[a-z]+$/.test(tld));
