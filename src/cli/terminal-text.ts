/**
 * Control characters other than line feed and tab (C0, DEL, C1 — escape sequences, carriage
 * returns) and the bidirectional overrides that reorder what a terminal shows.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from a request or a command's output, made safe to print to an operator's terminal:
 * each character that could move the cursor, rewrite the screen, set the clipboard (OSC 52) or
 * reorder a line is shown as its escape (`\x1b`, `\u202e`) instead of being acted on.
 */
export const terminalSafe = (text: string): string =>
  text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });

/**
 * A value printed inside a row or a one-line message (a trigger's name, a path, a problem
 * line): terminalSafe, and its line feeds and tabs shown as `\x0a` and `\x09` too, so that the
 * value cannot end its line and forge the next row. terminalSafe keeps them for what is printed
 * as a whole, several lines (a job's output).
 */
export const terminalField = (text: string): string => terminalSafe(text).replace(/[\n\t]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

/**
 * Why a command or the service's start failed, as printed on stderr: with `problems` (a
 * ConfigError's), the heading and one line per problem; else the message, as one line. Each is
 * a terminalField: a problem or a message repeats a value of the environment or of a
 * configuration file (a StartupError's DATA_DIR, a path in Node's own error), and a control
 * character there must not rewrite the terminal, nor a line break forge the next line.
 */
export const failureText = (message: string, problems?: { readonly heading: string; readonly problems: readonly string[] }): string =>
  problems === undefined
    ? terminalField(message)
    : `${terminalField(problems.heading)}:\n${problems.problems.map((problem) => `  - ${terminalField(problem)}`).join('\n')}`;
