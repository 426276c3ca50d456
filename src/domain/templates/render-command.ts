import { DomainError } from '../errors/domain-error.js';
import type { RequestSnapshot } from './request-snapshot.js';
import { findTokenPlaces, type TokenContext, type TokenPlace } from './shell-contexts.js';
import { tokenValue } from './template-tokens.js';

/** A command ready for `/bin/sh -c`: the script and the variables its references expand to. */
export interface RenderedCommand {
  readonly script: string;
  /** `AGW_ARG_1`, `AGW_ARG_2`, … (one per token occurrence) → the values, for this one run. */
  readonly env: Readonly<Record<string, string>>;
}

/** Prefix of the variables that carry token values; configuration may not name such a variable. */
export const TOKEN_VARIABLE_PREFIX = 'AGW_ARG_';

/** Linux's limit on one `NAME=value` string of an environment (MAX_ARG_STRLEN), its NUL included. */
export const MAX_ENV_STRING_BYTES = 128 * 1024;

/** How a reference is written so the expansion yields the value byte for byte where it stands. */
const REFERENCE: Record<TokenContext, (name: string) => string> = {
  unquoted: (name) => `"\${${name}}"`,
  double: (name) => `\${${name}}`,
  single: (name) => `'"\${${name}}"'`,
  heredoc: (name) => `\${${name}}`,
};

/** How many templates' token places `placesOf` keeps before it starts over. */
const PLACES_KEPT = 256;
const knownPlaces = new Map<string, readonly TokenPlace[]>();

/**
 * The places of a template's tokens (findTokenPlaces), found once per template instead of at
 * every run: a command action's template is fixed in the trigger file, and finding its places
 * reads the whole template as the shell and the programs it starts would read it — tens of
 * microseconds for a one-line command, milliseconds for one whose variables hold values, on the
 * main thread (bench/README.md, "Measurements behind the code"). The places depend on the
 * template alone and are read-only. Bounded: once PLACES_KEPT templates are known (trigger files
 * reloaded with other commands many times), it starts over.
 */
const placesOf = (template: string): readonly TokenPlace[] => {
  let places = knownPlaces.get(template);
  if (places === undefined) {
    if (knownPlaces.size >= PLACES_KEPT) knownPlaces.clear();
    places = findTokenPlaces(template);
    knownPlaces.set(template, places);
  }
  return places;
};

const utf8Length = (text: string): number => {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
};

/**
 * Renders a `command` template: each `{{token}}` becomes a reference to an environment
 * variable set for this run only, spelled for the place it stands (see shell-contexts.ts), and
 * the values go into `env`. The shell expands the variables and never parses a value, so no
 * request can add shell syntax in any context. Values keep every character but NUL, which no
 * environment variable can hold.
 *
 * Throws (`invalid_input`) for a token in a place no value may stand — validateTriggers refuses
 * such templates first — and for a value too large for an environment variable.
 */
export const renderCommand = (template: string, request: RequestSnapshot): RenderedCommand => {
  let script = '';
  let at = 0;
  const env: Record<string, string> = {};
  for (const [n, token] of placesOf(template).entries()) {
    if ('refused' in token.place) throw new DomainError('invalid_input', `${token.token} stands ${token.place.refused}`);
    const name = `${TOKEN_VARIABLE_PREFIX}${n + 1}`;
    const value = tokenValue(token.source, token.path, request).replace(/\0/g, '');
    const bytes = utf8Length(value);
    if (bytes + name.length + 2 > MAX_ENV_STRING_BYTES) {
      throw new DomainError(
        'invalid_input',
        `the value of ${token.token} is larger than the ${MAX_ENV_STRING_BYTES / 1024} KiB an environment variable can hold (${bytes} bytes); the command was not run`,
      );
    }
    env[name] = value;
    script += template.slice(at, token.index) + REFERENCE[token.place.context](name);
    at = token.index + token.length;
  }
  return { script: script + template.slice(at), env };
};

/** One token of a command template and the value it gives the command for one request. */
export interface CommandTokenValue {
  /** The token as written, e.g. `{{body.branch}}`. */
  readonly token: string;
  /** The environment variable that carries the value (`AGW_ARG_1`, …). */
  readonly variable: string;
  readonly value: string;
}

/**
 * The values a command template's tokens give the command for a request, in template order,
 * exactly as renderCommand passes them (NUL removed): for operators looking at a run.
 */
export const commandTokenValues = (template: string, request: RequestSnapshot): CommandTokenValue[] =>
  placesOf(template).map((token, n) => ({
    token: token.token,
    variable: `${TOKEN_VARIABLE_PREFIX}${n + 1}`,
    value: tokenValue(token.source, token.path, request).replace(/\0/g, ''),
  }));
