export {};
//# sourceMappingURL=schedule-run-repository.js.map