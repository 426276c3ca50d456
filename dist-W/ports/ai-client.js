export {};
//# sourceMappingURL=ai-client.js.map