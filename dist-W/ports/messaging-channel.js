export {};
//# sourceMappingURL=messaging-channel.js.map