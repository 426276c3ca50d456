export {};
//# sourceMappingURL=live-set.js.map