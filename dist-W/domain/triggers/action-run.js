export {};
//# sourceMappingURL=action-run.js.map