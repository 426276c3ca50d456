export {};
//# sourceMappingURL=headroom.js.map