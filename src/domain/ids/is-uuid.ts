const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `value` is a UUID as text: 8-4-4-4-12 hex digits, in any case and of any version
 * (the ids the service gives are UUIDs). Ids that come from outside are checked first:
 * anything else names no row, and must not become a database error.
 */
export const isUuid = (value: string): boolean => UUID.test(value);
