export {};
//# sourceMappingURL=http-forwarder.js.map