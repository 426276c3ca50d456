export {};
//# sourceMappingURL=job-runner.js.map