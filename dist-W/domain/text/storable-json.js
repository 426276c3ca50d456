import { storableText } from './storable-text.js';
/**
 * A JSON value as PostgreSQL `jsonb` can store it: every string in it, keys included and at
 * any depth, made storable (each NUL and lone surrogate becomes U+FFFD); everything else kept.
 * Values that are not JSON (functions, undefined) are left as they are.
 */
export const storableJson = (value) => {
    if (typeof value === 'string')
        return storableText(value);
    if (Array.isArray(value))
        return value.map((item) => storableJson(item));
    if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
        return Object.fromEntries(Object.entries(value).map(([key, item]) => [storableText(key), storableJson(item)]));
    }
    return value;
};
//# sourceMappingURL=storable-json.js.map