export {};
//# sourceMappingURL=inbound-request-store.js.map