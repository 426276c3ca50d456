export {};
//# sourceMappingURL=bot-token-store.js.map