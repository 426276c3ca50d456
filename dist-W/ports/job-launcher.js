export {};
//# sourceMappingURL=job-launcher.js.map