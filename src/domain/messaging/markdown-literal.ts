/**
 * The ASCII punctuation that is Markdown wherever it stands (CommonMark with GitHub's extensions,
 * as the `marked` lexer reads it): escapes, code, emphasis and strike-through, links, images and
 * their definitions, autolinks and HTML, character references, headings, tables, list markers
 * (`*`, `+`) and setext underlines (`=`). A backslash before any ASCII punctuation is read as
 * that character alone.
 */
const ALWAYS = /[\\`*_~[\]()<>&!#|{}+=]/g;
/**
 * Where GitHub's Markdown starts an address it links by itself (`https://`, `ftp://`, `www.`):
 * escaped, since such an autolink runs on over what follows it (`https://x\\)` would show the
 * backslash). The chat formatters show a bare address as text anyway, which the platform links
 * as what it shows.
 */
const AUTOLINK = /:(?=\/\/)|(?<=www)\./gi;
/** What is Markdown only at the start of a line (after its indentation): `-` (a list, a rule, an underline), `1.` and `1)` (a list). */
const LINE_START = /^([ \t]*)(?:-|(\d+)([.)]))/gm;

/**
 * `text` as Markdown that shows it as it is: the ASCII punctuation Markdown reads backslash-escaped
 * (ALWAYS everywhere, LINE_START at the start of a line), which CommonMark (and the `marked` lexer
 * the chat formatters read replies with) reads as that character and nothing else. So no part of it
 * becomes a link (`[label](https://…)`, `<https://…>`, `![…](…)`, `[label]: …`), emphasis, code, an
 * HTML tag, a character reference (`&amp;`), a heading, a table, a list, a quote or an address
 * linked by itself (AUTOLINK). The rest (`.`, `/`, `:`, `-` inside a line, …) is left as it is, so
 * ids and branches stay readable; an e-mail address is left too (the chat formatters show a bare
 * one as text).
 * A line's leading spaces are not escaped: four of them make a code block, which shows its text
 * as it is too.
 *
 * For data the gateway puts among the lines it writes itself (a job's id, error, branch and pull
 * request address in a job notice, a file name in a reply's "could not read" line): such data can
 * be written by whoever the gateway talks to (a job's agent names a git config key, a user names a
 * file), and in a line of the gateway's a link of theirs would read as the gateway's own
 * (`Error: … [Re-authorize the gateway](https://evil.example/login)`). Line breaks are left as they
 * are: a caller that wants the text on one line makes it so first.
 *
 * Where a rich format is refused and a reply goes as its plain Markdown, the backslashes show.
 * On Slack the text is literal Markdown but not literal mrkdwn: Slack has no escape for `*`, `_`,
 * `~` and a backquote, so `*a*` in the data still shows bold there (no link, mention or other
 * text can come of it: the Slack formatter escapes `<`, `>` and `&`).
 */
export const markdownLiteral = (text: string): string =>
  text
    .replace(ALWAYS, '\\$&')
    .replace(AUTOLINK, '\\$&')
    .replace(LINE_START, (_line, indent: string, digits?: string, mark?: string) => (digits === undefined ? `${indent}\\-` : `${indent}${digits}\\${mark}`));
