export {};
//# sourceMappingURL=key-repository.js.map