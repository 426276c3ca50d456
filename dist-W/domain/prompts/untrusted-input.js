import { DomainError } from '../errors/domain-error.js';
/**
 * Delimited blocks for text from outside (a request body, a chat message) that a model reads
 * as data. Each render has its own nonce in the tag name, so a value cannot close its block:
 * the exact tag name is also removed from the value, in case it was ever guessed.
 */
const TAG_PREFIX = 'untrusted-input-';
/** The nonce of one render, from a fresh random id (its letters and digits). */
export const untrustedNonce = (id) => {
    const nonce = id.replace(/[^A-Za-z0-9]/g, '');
    if (nonce.length < 16)
        throw new DomainError('internal', 'An untrusted-input nonce needs at least 16 letters or digits of a random id');
    return nonce;
};
/** The tag name of one render's blocks: `untrusted-input-<nonce>`. */
export const untrustedTag = (nonce) => `${TAG_PREFIX}${nonce}`;
const attribute = (text) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/**
 * `<untrusted-input-<nonce> source="…">value</untrusted-input-<nonce>>`. The value keeps every
 * byte except occurrences of the tag name, removed until none is left (removing one could
 * join the text around it into another). `source` says where the value came from.
 */
export const untrustedBlock = (value, source, nonce) => {
    const tag = untrustedTag(nonce);
    let safe = value;
    while (safe.includes(tag))
        safe = safe.split(tag).join('');
    return `<${tag} source="${attribute(source)}">${safe}</${tag}>`;
};
//# sourceMappingURL=untrusted-input.js.map