export {};
//# sourceMappingURL=login-attempts.js.map