export {};
//# sourceMappingURL=admin-store.js.map