export {};
//# sourceMappingURL=action-run-repository.js.map