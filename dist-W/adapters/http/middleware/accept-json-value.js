import { DomainError } from '../../../domain/errors/domain-error.js';
/**
 * Deepest nesting of arrays and objects a JSON body may have (the top-level object or array is
 * level 1). GitHub and Telegram payloads stay under 10; everything that handles a body later —
 * JSON.stringify, structured cloning, logging — recurses, and fails around a few thousand.
 */
export const MAX_JSON_DEPTH = 64;
const isWellFormed = (text) => text.isWellFormed();
const toWellFormed = (text) => text.toWellFormed();
const isContainer = (value) => typeof value === 'object' && value !== null;
/** Re-inserts every key of `node` in order, with its lone surrogates replaced. */
const fixKeys = (node) => {
    const entries = Object.entries(node);
    for (const [key] of entries)
        delete node[key];
    for (const [key, value] of entries)
        node[toWellFormed(key)] = value;
};
/**
 * The edge's rules for a parsed JSON body, the same on every endpoint: nesting deeper than
 * MAX_JSON_DEPTH is refused (400, naming the limit); a lone surrogate in any string or key
 * (valid JSON as `\ud83d`, but not Unicode text, so no database or UTF-8 encoder keeps it)
 * becomes U+FFFD. NUL characters are valid text and stay. Works in place, without recursion,
 * so a hostile body cannot exhaust the stack; returns the value to use.
 */
export const acceptJsonValue = (value) => {
    if (typeof value === 'string')
        return toWellFormed(value);
    if (!isContainer(value))
        return value;
    const pending = [[value, 1]];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
        const [node, depth] = next;
        if (depth > MAX_JSON_DEPTH)
            throw new DomainError('invalid_input', `JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
        const record = node;
        const keys = Array.isArray(node) ? undefined : Object.keys(node);
        const count = keys === undefined ? node.length : keys.length;
        let keysBroken = false;
        for (let i = 0; i < count; i++) {
            const key = keys === undefined ? i : keys[i];
            if (typeof key === 'string' && !isWellFormed(key))
                keysBroken = true;
            const child = record[key];
            if (typeof child === 'string') {
                if (!isWellFormed(child))
                    record[key] = toWellFormed(child);
            }
            else if (isContainer(child))
                pending.push([child, depth + 1]);
        }
        if (keysBroken)
            fixKeys(record);
    }
    return value;
};
//# sourceMappingURL=accept-json-value.js.map