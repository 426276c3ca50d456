import { DomainError } from '../errors/domain-error.js';
export const MAX_KEY_NAME_LENGTH = 100;
/** A key's name is how operators recognise it: required, trimmed, printable, bounded. */
export const validateKeyName = (raw) => {
    if (typeof raw !== 'string' || raw.trim() === '') {
        throw new DomainError('invalid_input', 'Missing key name');
    }
    const name = raw.trim();
    if (name.length > MAX_KEY_NAME_LENGTH) {
        throw new DomainError('invalid_input', `Key name is longer than ${MAX_KEY_NAME_LENGTH} characters`);
    }
    if (/[\u0000-\u001f\u007f]/.test(name)) {
        throw new DomainError('invalid_input', 'Key name contains control characters');
    }
    return name;
};
//# sourceMappingURL=key-name.js.map