export {};
//# sourceMappingURL=transcriber.js.map