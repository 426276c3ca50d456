export {};
//# sourceMappingURL=id-generator.js.map