export {};
//# sourceMappingURL=logger.js.map