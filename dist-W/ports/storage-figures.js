export {};
//# sourceMappingURL=storage-figures.js.map