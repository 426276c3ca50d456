export {};
//# sourceMappingURL=spawner-protocol.js.map