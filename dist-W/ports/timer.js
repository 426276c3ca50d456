export {};
//# sourceMappingURL=timer.js.map