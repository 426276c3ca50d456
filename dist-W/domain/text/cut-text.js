/** The first `length` characters, one fewer when the last would be half of a surrogate pair. */
export const headOf = (text, length) => {
    const cut = text.slice(0, length);
    return /[\uD800-\uDBFF]$/.test(cut) && /^[\uDC00-\uDFFF]/.test(text.slice(length)) ? cut.slice(0, -1) : cut;
};
/** The last `length` characters, one fewer when the first would be half of a surrogate pair. */
export const tailOf = (text, length) => {
    if (length <= 0)
        return '';
    const cut = text.slice(-length);
    return /^[\uDC00-\uDFFF]/.test(cut) && /[\uD800-\uDBFF]$/.test(text.slice(0, -length)) ? cut.slice(1) : cut;
};
/**
 * `text` whole when it has at most `limit` characters; else its first `headLength` and its last
 * `limit - headLength` characters around a line saying how many were left out. No surrogate
 * pair is split.
 */
export const headAndTail = (text, limit, headLength) => {
    if (text.length <= limit)
        return text;
    const start = headOf(text, headLength);
    const end = tailOf(text, limit - headLength);
    return `${start}\n[… ${text.length - start.length - end.length} characters left out …]\n${end}`;
};
//# sourceMappingURL=cut-text.js.map