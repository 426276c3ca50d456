export {};
//# sourceMappingURL=codehost-events.js.map