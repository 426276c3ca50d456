export {};
//# sourceMappingURL=secret-store.js.map