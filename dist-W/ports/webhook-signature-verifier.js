export {};
//# sourceMappingURL=webhook-signature-verifier.js.map