import { isAscii, isUtf8 } from 'node:buffer';
import type { Context } from 'koa';
import { DomainError } from '../../../domain/errors/domain-error.js';
import { shownInput } from '../../../domain/errors/shown-input.js';

/*
 * Bodies are read as bytes (body-stream.ts) and become text here: UTF-8 only, as JSON on the
 * wire must be (RFC 8259 8.1) and as browsers send forms. Bytes that are not UTF-8 are refused
 * rather than decoded with U+FFFD, which would store a corrupted text (`r\ufffdsum\ufffd`) as if
 * it had been sent.
 */

/** Charset parameters that mean UTF-8 (`us-ascii` is a subset); compared in lower case. */
const UTF8_CHARSETS: ReadonlySet<string> = new Set(['utf-8', 'utf8', 'us-ascii']);

/**
 * Single-byte charsets whose first 128 characters are ASCII's: a body in plain ASCII is the same
 * bytes under them as in UTF-8. Some HTTP clients label every body so (`charset=ISO-8859-1`).
 */
const ASCII_COMPATIBLE = /^(?:iso[-_ ]?8859[-_ ]?\d{1,2}|latin-?[1-9]|l[1-9]|windows-125\d|cp125\d|ascii|ansi_x3\.4-1968)$/i;

/**
 * A body whose Content-Type names a charset other than UTF-8 is refused (415), as a content type
 * we do not take is: decoding it as UTF-8 would misread it. No charset parameter means UTF-8.
 * Under an ASCII-compatible single-byte charset (`iso-8859-1`, `windows-1252`…) a body in plain
 * ASCII reads the same, so such a label is taken for a body that turns out to be plain ASCII
 * (utf8Text checks it): the label is returned then — for JSON only. `utf-16`, `utf-7` and the
 * rest are refused before the body is read, and every charset but UTF-8 for a form.
 */
export const refuseForeignCharset = (ctx: Context, what: 'JSON body' | 'form'): string | undefined => {
  // Koa gives the parameter unquoted, as sent; '' when there is none.
  const charset = ctx.request.charset;
  if (charset === '' || UTF8_CHARSETS.has(charset.toLowerCase())) return undefined;
  // Not for a form: its percent-escapes (`%E9`) would stand for bytes of that charset, plain ASCII as the body is.
  if (what === 'JSON body' && ASCII_COMPATIBLE.test(charset)) return charset;
  throw new DomainError('unsupported_media_type', `Unsupported charset ${shownInput(charset)}: send the ${what} as UTF-8`);
};

/**
 * Where `bytes` (known not to be valid UTF-8) first go wrong, from 0. Node decodes every
 * ill-formed sequence as U+FFFD, so the text before the first U+FFFD that was not itself sent
 * (as EF BF BD) is exactly the bytes before it.
 */
const firstInvalidByte = (bytes: Buffer): number => {
  const text = bytes.toString('utf8');
  let offset = 0;
  let counted = 0;
  for (let at = text.indexOf('\ufffd'); at !== -1; at = text.indexOf('\ufffd', at + 1)) {
    offset += Buffer.byteLength(text.slice(counted, at));
    counted = at + 1;
    if (bytes[offset] !== 0xef || bytes[offset + 1] !== 0xbf || bytes[offset + 2] !== 0xbd) return offset;
    offset += 3;
  }
  return offset;
};

/** A UTF-16 byte order mark (FF FE, FE FF) at the start: the commonest way a body is not UTF-8. */
const startsWithUtf16Bom = (bytes: Buffer): boolean => (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);

/**
 * The body's text, decoded as UTF-8. A leading UTF-8 byte order mark (EF BB BF) is dropped:
 * RFC 8259 lets a parser ignore one, some Windows tools write one, and it says nothing about
 * the content (koa-bodyparser's decoder dropped it too). Bytes that are not well-formed UTF-8
 * (Latin-1, UTF-16, an encoded surrogate ED A0 BD, an overlong C0 AF, a cut-off sequence) are
 * refused with a 400 naming the first offending byte (its offset from 0 in the body as received,
 * after any content-encoding). `asciiUnder`: the ASCII-compatible charset the body was labelled
 * with (refuseForeignCharset); a body that is not plain ASCII is then refused with a 415.
 * @throws DomainError `invalid_input`, or `unsupported_media_type`.
 */
export const utf8Text = (bytes: Buffer, what: 'JSON' | 'form', asciiUnder?: string): string => {
  if (asciiUnder !== undefined && !isAscii(bytes)) {
    throw new DomainError(
      'unsupported_media_type',
      `Unsupported charset ${shownInput(asciiUnder)}: send the ${what === 'JSON' ? 'JSON body' : 'form'} as UTF-8 (under this label only a body in plain ASCII is taken)`,
    );
  }
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const body = start === 0 ? bytes : bytes.subarray(start);
  if (isUtf8(body)) return body.toString('utf8');
  const hint = startsWithUtf16Bom(body) ? '; it starts with a UTF-16 byte order mark: send it as UTF-8' : '';
  throw new DomainError('invalid_input', `Invalid ${what} body: not valid UTF-8 at byte offset ${firstInvalidByte(body) + start}${hint}`);
};

/**
 * Text that is valid UTF-8 but holds NUL bytes in its first four is UTF-16 or UTF-32 without a
 * byte order mark (RFC 4627 3): `{` as 7B 00. No JSON text can start so, so this only adds to
 * the reason a body that failed to parse gets.
 */
export const looksLikeUtf16Or32 = (bytes: Buffer): boolean => bytes.subarray(0, 4).includes(0);
