export {};
//# sourceMappingURL=cli-io.js.map