const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * Whether `value` can be a `uuid` column's value. Ids that come from outside are checked
 * first: anything else names no row, and must not become a database error.
 */
export const isUuid = (value) => UUID.test(value);
//# sourceMappingURL=is-uuid.js.map