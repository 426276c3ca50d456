export {};
//# sourceMappingURL=infrastructure.js.map