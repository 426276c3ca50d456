/** Lone UTF-16 surrogates and NUL: what PostgreSQL `text` and `jsonb` refuse. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Text as PostgreSQL can store it: each NUL and each lone surrogate becomes U+FFFD; everything else is kept. */
export const storableText = (value) => value.replace(UNSTORABLE, '\uFFFD');
//# sourceMappingURL=storable-text.js.map