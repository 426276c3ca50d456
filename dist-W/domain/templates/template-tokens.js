/** `{{body}}`, `{{body.a.0.b}}`, `{{query}}`, `{{query.name}}`, `{{headers}}`, `{{headers.name}}`. */
export const TOKEN = /\{\{\s*(body|query|headers)((?:\.[^\s.{}]+)*)\s*\}\}/g;
const ANY_TOKEN = /\{\{[^{}]*\}\}/g;
/** Tokens that are not one of the SPEC 2.4 forms, for the trigger file's validation. */
export const findUnknownTokens = (template) => (template.match(ANY_TOKEN) ?? []).filter((token) => token.replace(TOKEN, '') !== '');
const own = (value, key) => {
    if (Array.isArray(value))
        return /^\d+$/.test(key) ? value[Number(key)] : undefined;
    if (typeof value === 'object' && value !== null && Object.hasOwn(value, key))
        return value[key];
    return undefined;
};
/**
 * The value at a token's path (`path` is the dotted part with its leading dot, `.a.0.b`, or empty
 * for the whole source); header names are matched in any case. Undefined when missing.
 */
export const fieldValue = (source, path, request) => {
    const root = source === 'body' ? request.body : source === 'query' ? request.query : request.headers;
    const named = path === '' ? [] : path.slice(1).split('.');
    const segments = source === 'headers' ? named.map((segment) => segment.toLowerCase()) : named;
    return segments.reduce((current, segment) => own(current, segment), root);
};
/**
 * The text a token stands for: a missing field is the empty string, a string is itself,
 * anything else (numbers, booleans, objects, arrays, null) is its JSON.
 */
export const tokenValue = (source, path, request) => {
    const value = fieldValue(source, path, request);
    if (value === undefined)
        return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
};
/** Replaces every token with its value, unescaped: for agent prompts, never for shell commands. */
export const renderText = (template, request) => template.replace(TOKEN, (_token, source, path) => tokenValue(source, path, request));
//# sourceMappingURL=template-tokens.js.map