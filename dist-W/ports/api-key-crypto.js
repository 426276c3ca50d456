export {};
//# sourceMappingURL=api-key-crypto.js.map