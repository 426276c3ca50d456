export {};
//# sourceMappingURL=trigger.js.map