/** The one snapshot to use for a unit of work. */
export const currentTriggers = (source) => ('current' in source ? source.current() : source);
//# sourceMappingURL=trigger-source.js.map