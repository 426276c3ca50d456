/**
 * The shape of an API key: `agw_` followed by 32 random bytes in base64url (43 characters).
 * Keys are high-entropy secrets, so a fast digest (SHA-256) is the right storage form;
 * only a short display prefix is ever kept in clear.
 */
export const API_KEY_PREFIX = 'agw_';
export const API_KEY_RANDOM_BYTES = 32;
export const API_KEY_LENGTH = API_KEY_PREFIX.length + Math.ceil((API_KEY_RANDOM_BYTES * 4) / 3);
const KEY_PATTERN = /^agw_[A-Za-z0-9_-]{43}$/;
/** Cheap shape check run before any lookup: a value that cannot be a key never reaches storage. */
export const isWellFormedApiKey = (value) => KEY_PATTERN.test(value);
/** What operators see to tell keys apart: the format prefix plus four characters of the key. */
export const displayPrefix = (key) => key.slice(0, API_KEY_PREFIX.length + 4);
//# sourceMappingURL=api-key-format.js.map