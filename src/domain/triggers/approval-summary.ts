import type { RequestSnapshot } from '../templates/request-snapshot.js';
import { renderCommand } from '../templates/render-command.js';
import { renderText } from '../templates/template-tokens.js';
import { headAndTail, headOf, tailOf } from '../text/cut-text.js';
import type { TriggerAction } from './trigger.js';
import { shownWebhookTarget } from './webhook-target.js';

/** Characters of each command value shown to the person deciding (as shown, escapes counted); the run uses the whole value. */
export const SUMMARY_VALUE = 300;
/** Characters of an agent job's prompt shown to the person deciding; the job gets all of it. */
export const SUMMARY_PROMPT = 2000;

/**
 * Characters that would make request text look like something else: controls (a newline
 * starts a line the gateway did not write; a carriage return is a line break in HTML), line
 * and paragraph separators, and format characters — bidi overrides and isolates (U+202A–202E,
 * U+2066–2069), which reorder the text shown around them, and invisible ones (zero widths,
 * tags) that hide text; and the characters that show as blanks but are not the space: the other
 * spaces (no-break, em, ideographic…: a run of them pushes a line's end out of sight, or makes a
 * wrapped line look like one the gateway wrote), the Hangul fillers, the braille blank, and the
 * invisible marks (combining grapheme joiner, Khmer inherent vowels, Mongolian variation
 * selectors), and the variation selectors, which can carry a hidden text of their own, one byte
 * each (all of U+FE00–FE0D and U+E0100–E01EF; U+FE0E and U+FE0F, which choose how an emoji looks,
 * are kept alone after a character, escaped in a run).
 */
const UNSHOWN =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u115F\u1160\u3164\uFFA0\u2800]|\u034F|\u17B4|\u17B5|\u180B|\u180C|\u180D|[\uFE00-\uFE0D]|[\u{E0100}-\u{E01EF}]|(?<=[\uFE00-\uFE0F\u{E0100}-\u{E01EF}])[\uFE0E\uFE0F]/gu;

/** One unshown character as an escape: JSON's where it has one (`\n`, `\r`, `\t`), else `\uXXXX` per UTF-16 unit. */
const escaped = (char: string): string => {
  const json = JSON.stringify(char).slice(1, -1);
  if (json !== char) return json;
  return Array.from({ length: char.length }, (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
};

/**
 * A value in double quotes, JSON-escaped (a quote, a backslash, a newline cannot end it or start
 * a line) and with every UNSHOWN character escaped too: its bounds are plain and every
 * character between them is shown as what it is.
 */
export const quotedValue = (value: string): string => JSON.stringify(value).replace(UNSHOWN, escaped);

/** How many characters `char` takes once quoted (its escape's length). */
const shownWidth = (char: string): number => quotedValue(char).length - 2;

/**
 * A value as the approver sees it: quoted whole when it shows in at most `limit` characters,
 * else its beginning and its end, each quoted on its own, around a note (outside the quotes) of
 * how many characters were left out. The cut counts what is shown, escapes included, so a
 * value of escapes takes no more room than another; no character (or surrogate pair) is split.
 */
export const shownValue = (value: string, limit = SUMMARY_VALUE): string => {
  const whole = quotedValue(value);
  if (whole.length - 2 <= limit) return whole;
  const chars = Array.from(value);
  let start = 0;
  for (let width = 0; start < chars.length && width + shownWidth(chars[start]) <= limit / 2; start++) width += shownWidth(chars[start]);
  let end = chars.length;
  for (let width = 0; end > start && width + shownWidth(chars[end - 1]) <= limit / 2; end--) width += shownWidth(chars[end - 1]);
  const head = chars.slice(0, start).join('');
  const tail = chars.slice(end).join('');
  return `${quotedValue(head)} [… ${value.length - head.length - tail.length} characters left out …] ${quotedValue(tail)}`;
};

/**
 * Text of many lines (a request as stored, a command's output) as a page shows it: every
 * UNSHOWN character escaped (see escaped) but the newline and the tab, so nothing in it is
 * reordered or hidden, and its lines stay lines.
 */
export const shownLines = (text: string): string => text.replace(UNSHOWN, (char) => (char === '\n' || char === '\t' ? char : escaped(char)));

/** The mark that begins each line of an agent job's prompt in a summary. */
const PROMPT_LINE = '│ ';

/**
 * An agent job's prompt as the approver sees it: a text of many lines by nature, so kept as
 * lines, but each begins with PROMPT_LINE, between a line saying so and one ending it — a line
 * of the request's text cannot pass for one of the gateway's. Its UNSHOWN characters but the
 * newline and the tab are escaped. Past SUMMARY_PROMPT characters, its beginning and its end
 * around a line (without the mark) saying how many were left out.
 */
const shownPrompt = (prompt: string): string => {
  const lines = (text: string): string[] =>
    shownLines(text)
      .split('\n')
      .map((line) => `${PROMPT_LINE}${line}`);
  const half = SUMMARY_PROMPT / 2;
  const start = prompt.length <= SUMMARY_PROMPT ? prompt : headOf(prompt, half);
  const end = prompt.length <= SUMMARY_PROMPT ? '' : tailOf(prompt, SUMMARY_PROMPT - half);
  const body = end === '' ? lines(start) : [...lines(start), `[… ${prompt.length - start.length - end.length} characters left out …]`, ...lines(end)];
  return [`agent job, its prompt (each of its lines begins with "${PROMPT_LINE.trim()}"):`, ...body, '(end of the prompt)'].join('\n');
};

/**
 * The action as it would run, for the person who approves it: a command as the shell gets it
 * with the value of each variable (quoted, cut to SUMMARY_VALUE: see shownValue), a webhook's
 * method and URL (never its headers, which may hold secrets), an agent job's prompt with the
 * values it gets (see shownPrompt). Request text never shows raw: it could otherwise forge
 * lines of the summary, or push the real value out of sight.
 */
export const approvalSummary = (action: TriggerAction, request: RequestSnapshot): string => {
  switch (action.type) {
    case 'command': {
      try {
        const rendered = renderCommand(action.command, request);
        const values = Object.entries(rendered.env).map(([name, value]) => `${name}=${shownValue(value)}`);
        return [`command: ${action.command}`, ...values].join('\n');
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return `command: ${action.command}\n(${message.replace(UNSHOWN, escaped)})`;
      }
    }
    case 'webhook':
      return `webhook: ${action.method} ${shownWebhookTarget(action.url)}`;
    case 'agent':
      return shownPrompt(renderText(action.job, request));
  }
};

/**
 * The summary as versions up to 2026-11-30 wrote it (values raw, unquoted). Kept only to compare
 * with approvals stored by those versions before actions were fingerprinted (RunTrigger): one
 * still pending must not look changed because the summary's format did.
 */
export const unquotedApprovalSummary = (action: TriggerAction, request: RequestSnapshot): string => {
  switch (action.type) {
    case 'command': {
      try {
        const rendered = renderCommand(action.command, request);
        const values = Object.entries(rendered.env).map(([name, value]) => `${name}=${headAndTail(value, SUMMARY_VALUE, SUMMARY_VALUE / 2)}`);
        return [`command: ${action.command}`, ...values].join('\n');
      } catch (error) {
        return `command: ${action.command}\n(${error instanceof Error ? error.message : String(error)})`;
      }
    }
    case 'webhook':
      return `webhook: ${action.method} ${shownWebhookTarget(action.url)}`;
    case 'agent':
      return `agent job: ${headAndTail(renderText(action.job, request), 2000, 1000)}`;
  }
};
