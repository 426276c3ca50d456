export {};
//# sourceMappingURL=password-hasher.js.map