import { DomainError } from '../errors/domain-error.js';
import { findTokenPlaces } from './shell-contexts.js';
import { tokenValue } from './template-tokens.js';
/** Prefix of the variables that carry token values; configuration may not name such a variable. */
export const TOKEN_VARIABLE_PREFIX = 'AGW_ARG_';
/** Linux's limit on one `NAME=value` string of an environment (MAX_ARG_STRLEN), its NUL included. */
export const MAX_ENV_STRING_BYTES = 128 * 1024;
/** How a reference is written so the expansion yields the value byte for byte where it stands. */
const REFERENCE = {
    unquoted: (name) => `"\${${name}}"`,
    double: (name) => `\${${name}}`,
    single: (name) => `'"\${${name}}"'`,
    heredoc: (name) => `\${${name}}`,
};
const utf8Length = (text) => {
    let bytes = 0;
    for (const char of text) {
        const code = char.codePointAt(0);
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
export const renderCommand = (template, request) => {
    let script = '';
    let at = 0;
    const env = {};
    for (const [n, token] of findTokenPlaces(template).entries()) {
        if ('refused' in token.place)
            throw new DomainError('invalid_input', `${token.token} stands ${token.place.refused}`);
        const name = `${TOKEN_VARIABLE_PREFIX}${n + 1}`;
        const value = tokenValue(token.source, token.path, request).replace(/\0/g, '');
        const bytes = utf8Length(value);
        if (bytes + name.length + 2 > MAX_ENV_STRING_BYTES) {
            throw new DomainError('invalid_input', `the value of ${token.token} is larger than the ${MAX_ENV_STRING_BYTES / 1024} KiB an environment variable can hold (${bytes} bytes); the command was not run`);
        }
        env[name] = value;
        script += template.slice(at, token.index) + REFERENCE[token.place.context](name);
        at = token.index + token.length;
    }
    return { script: script + template.slice(at), env };
};
/**
 * The values a command template's tokens give the command for a request, in template order,
 * exactly as renderCommand passes them (NUL removed): for operators looking at a run.
 */
export const commandTokenValues = (template, request) => findTokenPlaces(template).map((token, n) => ({
    token: token.token,
    variable: `${TOKEN_VARIABLE_PREFIX}${n + 1}`,
    value: tokenValue(token.source, token.path, request).replace(/\0/g, ''),
}));
//# sourceMappingURL=render-command.js.map