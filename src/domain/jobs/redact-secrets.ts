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

/** The text that stands before and after a value where it is the secret (either may be empty). */
export interface SecretContext {
  readonly before: string;
  readonly after: string;
}

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

type Span = { start: number; end: number; name: string };

/**
 * The spans of a value that is secret only in its context: each occurrence of `before`, the
 * value and `after`, the value's part only. Where output was cut, text that ends with the whole
 * `before` and the beginning of the value, or begins with the end of the value and the whole
 * `after` (at least MIN_REDACTED_LENGTH characters of the value, and a context that is not
 * empty), is taken for a cut-off value too: a piece of the value alone, or of its context, is
 * never enough (`the password`, `All tests pass` stay).
 */
const contextSpans = (text: string, name: string, value: string, { before, after }: SecretContext): Span[] => {
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
 * A value with a context is found only there, whatever its length (contextSpans).
 */
export const redactSecrets = (text: string, secrets: readonly NamedSecret[]): string => {
  const spans: Span[] = [];
  for (const secret of secrets) {
    if (secret.context) {
      spans.push(...contextSpans(text, secret.name, secret.value, secret.context));
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
  // Longest first where two start together, so the span that covers most names the marker.
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
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
