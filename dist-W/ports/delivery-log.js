export {};
//# sourceMappingURL=delivery-log.js.map