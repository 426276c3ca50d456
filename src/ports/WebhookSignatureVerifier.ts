/** Checks that a platform webhook was signed with the shared secret. */
export interface WebhookSignatureVerifier {
  /**
   * True only when a secret is configured and `signature` is the correct signature of
   * the exact `rawBody` bytes; compared in constant time. Missing values are false.
   */
  verify(rawBody: Buffer, signature: string | undefined): boolean;
}
