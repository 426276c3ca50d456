/**
 * What a trigger filter's `regex` may be. JavaScript regular expressions backtrack, so a pattern
 * such as `(a+)+$` or `.*.*x` can take seconds or years on a value a caller chose. The trigger file
 * is written by operators but the value comes from the request, so patterns are held to a shape
 * whose worst case stays small on the values they are tested against (MAX_REGEX_INPUT):
 * - at most MAX_REGEX_LENGTH characters, valid with the `u` flag;
 * - no back-references (`\1`, `\k<name>`);
 * - no quantifier on a group that holds a quantifier or an alternation (`(a+)+`, `(a|ab)*`):
 *   the exponential cases;
 * - at most MAX_VARIABLE_QUANTIFIERS quantifiers of variable length (`*`, `+`, `?`, `{n,}`,
 *   `{n,m}`), which keeps the polynomial cases (`.*.*.*x`) in check.
 */
export const MAX_REGEX_LENGTH = 200;
export const MAX_VARIABLE_QUANTIFIERS = 2;
/** Values longer than this (in UTF-16 code units) never match a `regex` test. */
export const MAX_REGEX_INPUT = 512;
/** A pattern's problem, or undefined when it is accepted. */
export const checkRegex = (source) => {
    if (source.length === 0)
        return 'must be a non-empty pattern';
    if (source.length > MAX_REGEX_LENGTH)
        return `at most ${MAX_REGEX_LENGTH} characters`;
    try {
        new RegExp(source, 'u');
    }
    catch (error) {
        return `not a valid regular expression (${error.message})`;
    }
    return checkShape(source);
};
/** Walks the (already valid) pattern once, tracking groups; character classes are skipped whole. */
const checkShape = (source) => {
    const groups = [{ quantified: false, alternation: false }];
    let variable = 0;
    let lastClosed; // the group just closed, when the next token may quantify it
    let i = 0;
    while (i < source.length) {
        const char = source[i];
        const closed = lastClosed;
        lastClosed = undefined;
        if (char === '\\') {
            const next = source[i + 1] ?? '';
            if (/[1-9]/.test(next) || next === 'k')
                return 'back-references (\\1, \\k<name>) are not allowed';
            i += next === 'u' && source[i + 2] === '{' ? source.indexOf('}', i) + 1 - i : 2;
            continue;
        }
        if (char === '[') {
            i = endOfClass(source, i);
            continue;
        }
        if (char === '(') {
            groups.push({ quantified: false, alternation: false });
            i +=
                source.startsWith('(?<', i) && !source.startsWith('(?<=', i) && !source.startsWith('(?<!', i)
                    ? source.indexOf('>', i) + 1 - i
                    : source[i + 1] === '?'
                        ? 3
                        : 1;
            continue;
        }
        if (char === ')') {
            const group = groups.pop();
            const parent = groups[groups.length - 1];
            parent.quantified ||= group.quantified;
            lastClosed = group;
            i += 1;
            continue;
        }
        if (char === '|') {
            groups[groups.length - 1].alternation = true;
            i += 1;
            continue;
        }
        const quantifier = /^(?:[*+?]|\{\d+(?:,\d*)?\})\??/.exec(source.slice(i))?.[0];
        if (quantifier !== undefined) {
            if (closed?.quantified)
                return 'a quantifier on a group that holds a quantifier (like (a+)+) can take exponential time';
            if (closed?.alternation)
                return 'a quantifier on a group with alternatives (like (a|ab)*) can take exponential time';
            if (!/^\{(\d+)\}\??$/.test(quantifier))
                variable += 1;
            if (variable > MAX_VARIABLE_QUANTIFIERS)
                return `at most ${MAX_VARIABLE_QUANTIFIERS} quantifiers of variable length (*, +, ?, {n,m}) so that matching stays fast`;
            groups[groups.length - 1].quantified = true;
            i += quantifier.length;
            continue;
        }
        i += 1;
    }
    return undefined;
};
/** The index after the character class opening at `start` (`[]` is the empty class with `u`). */
const endOfClass = (source, start) => {
    let i = start + 1;
    if (source[i] === '^')
        i += 1;
    while (i < source.length && source[i] !== ']')
        i += source[i] === '\\' ? 2 : 1;
    return i + 1;
};
//# sourceMappingURL=safe-regex.js.map