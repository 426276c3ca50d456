import { parse as parseRefusingProto } from '@hapi/bourne';
import { DomainError } from '../../../domain/errors/domain-error.js';
import { exactNumbersReviver } from '../../../domain/templates/exact-json.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../shared/json-depth.js';
import { jsonFault } from '../../shared/json-fault.js';
import { looksLikeUtf16Or32, utf8Text } from './body-text.js';

/**
 * Texts up to this many characters are parsed without looking for their depth first (unless a
 * number is kept exactly): they cannot nest deep enough to cost anything, and most bodies are
 * this short. acceptJsonValue refuses one nested too deep after the parse.
 */
const DEPTH_SCAN_FROM = 4096;

/** @hapi/bourne's error for a `__proto__` key (valid JSON, refused): told apart from a syntax error. */
const FORBIDDEN_PROTO = 'Object contains forbidden prototype property';

/**
 * The value of a JSON body's bytes (undefined for none), parsed as co-body would: with
 * @hapi/bourne, which refuses `__proto__` keys, any JSON value at the top level. A number a
 * double cannot hold — an integer beyond 2^53, one beyond the double range — is kept as its
 * exact text, a `JSON.rawJSON` value (domain/templates/exact-json.ts), so a 64-bit id reaches
 * the stored request, templates and forwards digit for digit, never rounded nor `null`.
 * @throws DomainError `invalid_input`: not UTF-8, not JSON (naming the line and column of the
 *   first fault, never quoting the body), a `__proto__` key (said so); nested
 *   deeper than MAX_JSON_DEPTH, told before the parse for a text longer than DEPTH_SCAN_FROM or
 *   holding a number kept exactly (otherwise acceptJsonValue says so after the parse).
 */
export const parseJson = (bytes: Buffer, asciiUnder?: string): unknown => {
  const text = utf8Text(bytes, 'JSON', asciiUnder);
  if (text === '') return undefined;
  const reviver = exactNumbersReviver(text);
  if ((reviver !== undefined || text.length > DEPTH_SCAN_FROM) && nestedDeeperThan(text, MAX_JSON_DEPTH))
    throw new DomainError('invalid_input', `JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return reviver === undefined ? parseRefusingProto(text, { protoAction: 'error' }) : parseRefusingProto(text, reviver, { protoAction: 'error' });
  } catch (error) {
    if (error instanceof SyntaxError && error.message === FORBIDDEN_PROTO)
      throw new DomainError('invalid_input', 'Invalid JSON body: a "__proto__" key is not allowed');
    if (looksLikeUtf16Or32(bytes)) throw new DomainError('invalid_input', 'Invalid JSON body: it looks like UTF-16 or UTF-32; send it as UTF-8');
    const where = jsonFault(error, text, 'body');
    throw new DomainError('invalid_input', where === undefined ? 'Invalid JSON body' : `Invalid JSON body: ${where}`);
  }
};
