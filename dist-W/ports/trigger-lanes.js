export {};
//# sourceMappingURL=trigger-lanes.js.map