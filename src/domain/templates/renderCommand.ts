import type { RequestSnapshot } from './RequestSnapshot.js';
import { TOKEN, tokenValue } from './templateTokens.js';

type Quoting = 'none' | 'single' | 'double';

/** A value as one literal word where no quotes are open: '…' with each ' written as '\''. */
const quoteUnquoted = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;
/** Inside '…' nothing is special but the closing quote: close, write an escaped quote, reopen. */
const quoteInSingle = (value: string): string => value.replace(/'/g, `'\\''`);
/** Inside "…" the shell still expands $, ` and \, and " closes: escape exactly those. */
const quoteInDouble = (value: string): string => value.replace(/[\\$`"]/g, (c) => `\\${c}`);

const QUOTERS: Record<Quoting, (value: string) => string> = {
  none: quoteUnquoted,
  single: quoteInSingle,
  double: quoteInDouble,
};

/**
 * Renders a `command` template for `/bin/sh -c`. Each token's value is escaped for the
 * quoting context the token stands in (tracked through the template's own quotes and
 * backslashes), so the command receives the value literally — no request can add shell
 * syntax. NUL bytes, which no shell argument can hold, are dropped.
 */
export const renderCommand = (template: string, request: RequestSnapshot): string => {
  let out = '';
  let quoting: Quoting = 'none';
  let i = 0;
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(template); ; match = TOKEN.exec(template)) {
    const end = match ? match.index : template.length;
    for (; i < end; i++) {
      const c = template[i];
      out += c;
      if (quoting === 'single') {
        if (c === "'") quoting = 'none';
      } else if (c === '\\' && i + 1 < end) {
        out += template[++i];
      } else if (quoting === 'double') {
        if (c === '"') quoting = 'none';
      } else if (c === "'") quoting = 'single';
      else if (c === '"') quoting = 'double';
    }
    if (!match) return out;
    const value = tokenValue(match[1], match[2], request).replace(/\0/g, '');
    out += QUOTERS[quoting](value);
    i = match.index + match[0].length;
  }
};
