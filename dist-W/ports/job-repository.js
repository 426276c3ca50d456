export {};
//# sourceMappingURL=job-repository.js.map