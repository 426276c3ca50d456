/** A secret value and the name of the variable that holds it (the name may be shown, never the value). */
export interface NamedSecret {
  readonly name: string;
  readonly value: string;
  /**
   * Set for a value that is secret only where this text surrounds it (a short password is an
   * ordinary word elsewhere): the value is then redacted only where `before` and `after` stand
   * around it, and they stay (`postgres://app:[redacted DATABASE_URL password]@db`).
   */
  readonly context?: SecretContext;
}

/**
 * Where a value is the secret: between the text that stands `before` and `after` it (either may be
 * empty), or as the value assigned to a name (`assignedTo`: see assignmentSource).
 */
export type SecretContext = { readonly before: string; readonly after: string } | { readonly assignedTo: string };

/**
 * Values shorter than this are not redacted: they would blank out ordinary words and numbers
 * all over the text, and hiding them protects nothing.
 */
export const MIN_REDACTED_LENGTH = 4;

/**
 * The forms of a secret to look for: the value as set, trimmed, inside a JSON string (quotes,
 * backslashes and newlines escaped), and each line of a multi-line value (an unquoted
 * `echo $X` prints a PEM key's lines joined by spaces).
 */
const formsOf = (secret: NamedSecret): string[] => {
  const lines = secret.value.split(/\r?\n/).map((line) => line.trim());
  const forms = [secret.value, secret.value.trim(), JSON.stringify(secret.value).slice(1, -1), ...lines];
  return [...new Set(forms)].filter((form) => form.length >= MIN_REDACTED_LENGTH);
};

/** A value in its context: as set and as written inside a JSON string, of any length (its context says what it is). */
const contextFormsOf = (value: string): string[] => [...new Set([value, JSON.stringify(value).slice(1, -1)])].filter((form) => form !== '');

/** A span to redact; `from`, where its context begins, names the marker where spans tie (`PGPASSWORD = v` assigns to `PGPASSWORD` rather than to `password`). */
type Span = { start: number; end: number; name: string; from?: number };

const escapeRegExp = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** `name` as a pattern of any case (`PGPASSWORD`, `pgpassword`; `password`, `Password`). */
const anyCase = (name: string): string =>
  [...name]
    .map((char) =>
      char.toLowerCase() === char.toUpperCase() ? escapeRegExp(char) : `[${escapeRegExp(char.toLowerCase())}${escapeRegExp(char.toUpperCase())}]`,
    )
    .join('');

/**
 * The text that assigns a value to `name`, up to the value: the name, of any case, bare or quoted
 * with `'` or `"`, then `=`, `:` or `=>` with spaces or tabs around it, then the value's opening
 * `'` or `"` if any. So an environment dump or `.env` file (`NAME=v`, `NAME="v"`, a compose file's
 * `- NAME=v`), INI and TOML (`NAME = v`), JSON (`"NAME": "v"`), YAML (`NAME: v`), Python's
 * `print(os.environ)` (`'NAME': 'v'`) and Ruby's hashes (`"NAME"=>"v"`).
 */
const assignmentSource = (name: string): string => `(['"]?)${anyCase(name)}\\1[ \\t]*(?:=>|[:=])[ \\t]*['"]?`;

/** The beginnings (`fromEnd` false) or ends of `form` from `least` characters to all but one, as alternatives of a pattern, longest first. */
const piecesSource = (form: string, least: number, fromEnd: boolean): string | undefined => {
  const pieces: string[] = [];
  for (let length = form.length - 1; length >= least; length--) pieces.push(escapeRegExp(fromEnd ? form.slice(form.length - length) : form.slice(0, length)));
  return pieces.length === 0 ? undefined : pieces.join('|');
};

/** The patterns that find one form of a value assigned to a name. */
interface AssignmentPatterns {
  readonly form: string;
  /** The assignment and the whole value (the value ends the match). */
  readonly whole: RegExp;
  /** The assignment and a beginning of the value (group 2) at the end of the text. */
  readonly cutEnd?: RegExp;
  /** An end of the value (group 1) and its closing quote at the beginning of the text. */
  readonly cutStart?: RegExp;
}

/** Each assigned secret's patterns, compiled once (a store hands out the same secrets each time). */
const compiled = new WeakMap<NamedSecret, readonly AssignmentPatterns[]>();

const assignmentPatterns = (secret: NamedSecret, assignedTo: string): readonly AssignmentPatterns[] => {
  let patterns = compiled.get(secret);
  if (patterns === undefined) {
    const assignment = assignmentSource(assignedTo);
    patterns = contextFormsOf(secret.value).map((form) => {
      const beginnings = piecesSource(form, 1, false);
      const ends = piecesSource(form, MIN_REDACTED_LENGTH, true);
      return {
        form,
        whole: new RegExp(`${assignment}${escapeRegExp(form)}`, 'g'),
        cutEnd: beginnings === undefined ? undefined : new RegExp(`${assignment}(${beginnings})$`),
        cutStart: ends === undefined ? undefined : new RegExp(`^(${ends})['"]`),
      };
    });
    compiled.set(secret, patterns);
  }
  return patterns;
};

/**
 * The spans of a value assigned to a name (assignmentSource), the value's part only. Where output
 * was cut, text that ends with the assignment and a beginning of the value, of any length (the
 * whole assignment says what it is: `PGPASSWORD=s3c` keeps nothing of it), or begins with the end
 * of a quoted value (at least MIN_REDACTED_LENGTH characters) and its closing quote, is taken for
 * a cut-off value too.
 */
const assignmentSpans = (text: string, secret: NamedSecret, assignedTo: string): Span[] => {
  const spans: Span[] = [];
  for (const { form, whole, cutEnd, cutStart } of assignmentPatterns(secret, assignedTo)) {
    for (const match of text.matchAll(whole)) {
      const end = match.index + match[0].length;
      spans.push({ start: end - form.length, end, name: secret.name, from: match.index });
    }
    const atEnd = cutEnd?.exec(text);
    if (atEnd) spans.push({ start: text.length - atEnd[2].length, end: text.length, name: secret.name, from: atEnd.index });
    const atStart = cutStart?.exec(text);
    if (atStart) spans.push({ start: 0, end: atStart[1].length, name: secret.name });
  }
  return spans;
};

/**
 * The spans of a value that is secret only in its context: each occurrence of `before`, the
 * value and `after`, the value's part only. Where output was cut, text that ends with the whole
 * `before` and the beginning of the value, or begins with the end of the value and the whole
 * `after` (at least MIN_REDACTED_LENGTH characters of the value, and a context that is not
 * empty), is taken for a cut-off value too: a piece of the value alone, or of its context, is
 * never enough (`the password`, `All tests pass` stay).
 */
const contextSpans = (text: string, name: string, value: string, before: string, after: string): Span[] => {
  const spans: Span[] = [];
  for (const form of contextFormsOf(value)) {
    const whole = before + form + after;
    for (let at = text.indexOf(whole); at !== -1; at = text.indexOf(whole, at + 1)) {
      spans.push({ start: at + before.length, end: at + before.length + form.length, name });
    }
    if (before !== '') {
      for (let length = Math.min(form.length - 1, text.length - before.length); length >= MIN_REDACTED_LENGTH; length--) {
        if (text.endsWith(before + form.slice(0, length))) {
          spans.push({ start: text.length - length, end: text.length, name });
          break;
        }
      }
    }
    if (after !== '') {
      for (let length = Math.min(form.length - 1, text.length - after.length); length >= MIN_REDACTED_LENGTH; length--) {
        if (text.startsWith(form.slice(form.length - length) + after)) {
          spans.push({ start: 0, end: length, name });
          break;
        }
      }
    }
  }
  return spans;
};

/**
 * Replaces every occurrence of a secret's value with `[redacted NAME]`. Occurrences that
 * overlap (one secret inside another, or a value repeating into itself) are replaced as one
 * span, so no part of either value survives next to the marker. Text is scanned once: a
 * marker is never searched again. Values shorter than MIN_REDACTED_LENGTH are left alone.
 * Output is often cut at a size limit, at its end or (keeping the end of a long log) at its
 * beginning: text that ends with the beginning of a value, or begins with the end of one (at
 * least MIN_REDACTED_LENGTH characters of it), is taken for a cut-off value and redacted too.
 * A value with a context is found only there, whatever its length (contextSpans, assignmentSpans).
 */
export const redactSecrets = (text: string, secrets: readonly NamedSecret[]): string => {
  const spans: Span[] = [];
  for (const secret of secrets) {
    const { context } = secret;
    if (context) {
      if ('assignedTo' in context) spans.push(...assignmentSpans(text, secret, context.assignedTo));
      else spans.push(...contextSpans(text, secret.name, secret.value, context.before, context.after));
      continue;
    }
    for (const form of formsOf(secret)) {
      for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) spans.push({ start: at, end: at + form.length, name: secret.name });
      for (let length = Math.min(form.length - 1, text.length); length >= MIN_REDACTED_LENGTH; length--) {
        if (text.endsWith(form.slice(0, length))) {
          spans.push({ start: text.length - length, end: text.length, name: secret.name });
          break;
        }
      }
      for (let length = Math.min(form.length - 1, text.length); length >= MIN_REDACTED_LENGTH; length--) {
        if (text.startsWith(form.slice(form.length - length))) {
          spans.push({ start: 0, end: length, name: secret.name });
          break;
        }
      }
    }
  }
  if (spans.length === 0) return text;
  // Longest first where two start together, so the span that covers most names the marker; of
  // equal ones, the one whose context begins first (the longer name assigned).
  spans.sort((a, b) => a.start - b.start || b.end - a.end || (a.from ?? a.start) - (b.from ?? b.start));
  let out = '';
  let copied = 0;
  for (let i = 0; i < spans.length; ) {
    const { start, name } = spans[i];
    let end = spans[i].end;
    for (i++; i < spans.length && spans[i].start < end; i++) end = Math.max(end, spans[i].end);
    out += `${text.slice(copied, start)}[redacted ${name}]`;
    copied = end;
  }
  return out + text.slice(copied);
};

/**
 * `value` with every string inside it (array items, object values) redacted, for results that
 * are serialized later: a value holding `"` or a newline no longer reads the same once in JSON.
 */
export const redactSecretsDeep = (value: unknown, secrets: readonly NamedSecret[]): unknown => {
  if (typeof value === 'string') return redactSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactSecretsDeep(item, secrets));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [redactSecrets(key, secrets), redactSecretsDeep(item, secrets)]));
  }
  return value;
};
