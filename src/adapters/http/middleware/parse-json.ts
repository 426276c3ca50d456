import { parse as parseRefusingProto } from '@hapi/bourne';
import { DomainError } from '../../../domain/errors/domain-error.js';
import { exactNumbersReviver } from '../../../domain/templates/exact-json.js';
import { looksLikeUtf16Or32, utf8Text } from './body-text.js';

/**
 * The value of a JSON body's bytes (undefined for none), parsed as co-body would: with
 * @hapi/bourne, which refuses `__proto__` keys, any JSON value at the top level. A number a
 * double cannot hold — an integer beyond 2^53, one beyond the double range — is kept as its
 * exact text, a `JSON.rawJSON` value (domain/templates/exact-json.ts), so a 64-bit id reaches
 * the stored request, templates and forwards digit for digit, never rounded nor `null`.
 * @throws DomainError `invalid_input`: not UTF-8, not JSON.
 */
export const parseJson = (bytes: Buffer, asciiUnder?: string): unknown => {
  const text = utf8Text(bytes, 'JSON', asciiUnder);
  if (text === '') return undefined;
  try {
    const reviver = exactNumbersReviver(text);
    return reviver === undefined ? parseRefusingProto(text, { protoAction: 'error' }) : parseRefusingProto(text, reviver, { protoAction: 'error' });
  } catch {
    throw new DomainError(
      'invalid_input',
      looksLikeUtf16Or32(bytes) ? 'Invalid JSON body: it looks like UTF-16 or UTF-32; send it as UTF-8' : 'Invalid JSON body',
    );
  }
};
