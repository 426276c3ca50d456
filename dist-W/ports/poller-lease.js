export {};
//# sourceMappingURL=poller-lease.js.map