/**
 * A Markdown text's numeric character references (`&#8482;`, `&#x26;`) as the characters they
 * name, every other character as written (named references such as `&copy;` included). The
 * text is escaped for the platform after this, once: marked's own `text` of an inline text
 * token decodes these references and then escapes every `&` of the line, which escaped again
 * showed `AT&T &#8482;` as `AT&amp;T ™`. A reference to no character (0, a surrogate, past
 * U+10FFFF) is U+FFFD, as CommonMark says.
 */
export const decodeNumericReferences = (text: string): string =>
  text.includes('&#')
    ? text.replace(/&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));/g, (_reference, hex: string | undefined, decimal: string | undefined) => {
        const code = hex !== undefined ? Number.parseInt(hex, 16) : Number(decimal);
        return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\uFFFD' : String.fromCodePoint(code);
      })
    : text;
