export {};
//# sourceMappingURL=readiness-check.js.map