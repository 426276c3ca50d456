export {};
//# sourceMappingURL=shell-executor.js.map