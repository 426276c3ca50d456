export {};
//# sourceMappingURL=pull-requests.js.map