export {};
//# sourceMappingURL=channel-binding.js.map