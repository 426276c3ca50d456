export {};
//# sourceMappingURL=approval-store.js.map