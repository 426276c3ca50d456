export {};
//# sourceMappingURL=idempotency-key-store.js.map