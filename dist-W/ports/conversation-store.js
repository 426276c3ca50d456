export {};
//# sourceMappingURL=conversation-store.js.map