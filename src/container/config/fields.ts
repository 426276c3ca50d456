import { z } from 'zod';
import { shownInput } from '../../domain/errors/shown-input.js';

/**
 * Zod fields for environment variables. Each reads the raw string (unset and blank are the
 * same), validates it and turns it into its typed value; a problem is reported once, as
 * `"<raw>" is not …`, and the configuration's loader puts the variable's name in front.
 */

/** The raw value: trimmed, and undefined when unset or blank. */
const raw = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

/** Free text with a default. */
export const text = (fallback: string) => raw.transform((value) => value ?? fallback);

/** Free text, undefined when unset. */
export const optionalText = () => raw;

/**
 * A path starting with `~` (`~/agw-data`): nothing expands it — not Node, not `.env`, not a
 * systemd EnvironmentFile — and it was taken as a directory named `~` in the working directory.
 */
const refuseTilde = (value: string | undefined, ctx: z.RefinementCtx): void => {
  if (value?.startsWith('~'))
    ctx.addIssue({
      code: 'custom',
      message: '~ is not expanded (nothing here does: not .env, not a systemd EnvironmentFile, not a shell in quotes); write the full path',
    });
};

/** A file or directory path with a default, relative to the working directory; `~` is refused. */
export const path = (fallback: string) => text(fallback).superRefine(refuseTilde);

/** A file or directory path, undefined when unset; `~` is refused. */
export const optionalPath = () => raw.superRefine(refuseTilde);

/** A secret, taken as given (not trimmed: surrounding spaces could be part of it); undefined when unset or empty. */
export const secret = () =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      // Spaces alone are a slip (a quoted empty value), and as a key guessable: refused, not taken.
      if (value.trim() === '') {
        ctx.addIssue({ code: 'custom', message: 'is only whitespace: set the secret, or leave the variable unset' });
        return z.NEVER;
      }
      return value;
    });

/** A whole number between `min` and `max`. */
export const integer = (fallback: number, min: number, max: number) =>
  raw.transform((value, ctx) => {
    if (value === undefined) return fallback;
    const number = Number(value);
    if (/^\d+$/.test(value) && number >= min && number <= max) return number;
    ctx.addIssue({ code: 'custom', message: `"${shownInput(value)}" is not a whole number between ${min} and ${max}` });
    return z.NEVER;
  });

/** true/false (also 1/0), any case. */
export const flag = (fallback: boolean) =>
  raw.transform((value, ctx) => {
    if (value === undefined) return fallback;
    const lower = value.toLowerCase();
    if (lower === 'true' || lower === '1') return true;
    if (lower === 'false' || lower === '0') return false;
    ctx.addIssue({ code: 'custom', message: `"${shownInput(value)}" is not true or false` });
    return z.NEVER;
  });

/** false/0 (none), true (one) or a count of proxies in front of the service, 1 to 10. */
export const proxyHops = () =>
  raw.transform((value, ctx) => {
    if (value === undefined) return 0;
    const lower = value.toLowerCase();
    if (lower === 'false' || lower === '0') return 0;
    if (lower === 'true') return 1;
    if (/^\d{1,2}$/.test(value) && Number(value) >= 1 && Number(value) <= 10) return Number(value);
    ctx.addIssue({ code: 'custom', message: `"${shownInput(value)}" is not true, false or a number of proxies from 1 to 10` });
    return z.NEVER;
  });

/** One of `choices`, any case. */
export const oneOf = <T extends string>(choices: readonly T[], fallback: T) =>
  raw.transform((value, ctx) => {
    if (value === undefined) return fallback;
    const lower = value.toLowerCase();
    const found = choices.find((choice) => choice === lower);
    if (found !== undefined) return found;
    ctx.addIssue({ code: 'custom', message: `"${shownInput(value)}" is not one of ${choices.join(', ')}` });
    return z.NEVER;
  });

/** One of `choices` exactly, or undefined when unset. */
export const optionalOneOf = <T extends string>(choices: readonly T[]) =>
  raw.transform((value, ctx) => {
    if (value === undefined) return undefined;
    const found = choices.find((choice) => choice === value);
    if (found !== undefined) return found;
    ctx.addIssue({ code: 'custom', message: `"${shownInput(value)}" is not one of ${choices.join(', ')}` });
    return z.NEVER;
  });

/** Whether `value` is an absolute http(s) URL the URL parser takes (a bad port or host would fail every call later). */
const isHttpUrl = (value: string): boolean => {
  if (!/^https?:\/\/[^\s]+$/.test(value)) return false;
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
};

/**
 * A refused URL as a problem repeats it: a user and password (`user:secret@`), a query
 * (`?api-key=…`) and a fragment are replaced by `…`, since a base URL may carry a credential there.
 * A refused URL is malformed, often in its credentials themselves (a `/`, `?` or `#` in the
 * password, not percent-encoded; the scheme forgotten or written `https:/`): everything after
 * the scheme up to the last `@` is hidden, wherever the parts would be.
 */
const shownUrl = (value: string): string => {
  const at = value.lastIndexOf('@');
  const hidden = at === -1 ? value : `${/^[A-Za-z][A-Za-z0-9+.-]*:[/\\]*/.exec(value)?.[0] ?? ''}…${value.slice(at)}`;
  return hidden.replace(/[?#].*$/s, (rest) => `${rest[0]}…`);
};

/** The most characters of a refused URL a problem repeats (once its credentials are hidden): a base URL is longer than a number. */
const URL_SHOWN_LENGTH = 200;

/** An http(s) URL, or undefined when unset. */
export const optionalUrl = () =>
  raw.transform((value, ctx) => {
    if (value === undefined || isHttpUrl(value)) return value;
    ctx.addIssue({ code: 'custom', message: `"${shownInput(shownUrl(value), URL_SHOWN_LENGTH)}" is not an http(s) URL` });
    return z.NEVER;
  });

/** An http(s) URL with a default; a trailing slash is dropped. */
export const url = (fallback: string) => optionalUrl().transform((value) => (value ?? fallback).replace(/\/$/, ''));

const SIZE = /^(\d+)\s*(b|kb|kib|mb|mib|gb|gib)?$/i;
const UNITS: Record<string, number> = { b: 1, kb: 1024, kib: 1024, mb: 1024 ** 2, mib: 1024 ** 2, gb: 1024 ** 3, gib: 1024 ** 3 };

/** `1048576`, `512kb`, `1mb` (binary units) → bytes. */
export const parseSize = (value: string): number | undefined => {
  const match = SIZE.exec(value.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()];
};

/**
 * The largest size a setting takes: 1 GiB. More digits would read as a number past what a
 * double holds exactly, or as Infinity (`999…9`), which switches a limit off altogether.
 */
export const MAX_SIZE_BYTES = 1024 ** 3;

/** A size in bytes from 1 to 1 GiB (`1048576`, `512kb`, `1mb`, `1gb`). */
export const size = (fallback: string) =>
  text(fallback).transform((value, ctx) => {
    const bytes = parseSize(value);
    if (bytes !== undefined && bytes >= 1 && bytes <= MAX_SIZE_BYTES) return bytes;
    ctx.addIssue({
      code: 'custom',
      message:
        bytes === undefined || bytes < 1
          ? `"${shownInput(value)}" is not a size such as 1048576, 512kb or 1mb`
          : `"${shownInput(value)}" is more than the largest size taken, 1gb (${MAX_SIZE_BYTES} bytes)`,
    });
    return z.NEVER;
  });

/** A comma-separated list: items trimmed, blanks dropped, each kept once; each item checked by `check` (a message, or undefined when fine). */
export const list = (check: (item: string) => string | undefined = () => undefined) =>
  raw.transform((value, ctx) => {
    const items = [
      ...new Set(
        (value ?? '')
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== ''),
      ),
    ];
    for (const item of items) {
      const problem = check(item);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }
    return items;
  });

/** The environment as a whole (`process.env` is no plain object, which `z.record` would refuse). */
export const environment = () =>
  z.custom<Readonly<Record<string, string | undefined>>>((value) => typeof value === 'object' && value !== null, 'the environment must be an object');
