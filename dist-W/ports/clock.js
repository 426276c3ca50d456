export {};
//# sourceMappingURL=clock.js.map