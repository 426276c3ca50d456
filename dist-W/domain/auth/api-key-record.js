export const summarize = (record) => ({
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    createdAt: record.createdAt,
    lastUsedAt: record.lastUsedAt,
});
//# sourceMappingURL=api-key-record.js.map