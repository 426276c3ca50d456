/** Checks that a platform webhook was signed with the shared secret. */
export interface WebhookSignatureVerifier {
  /**
   * True only when a secret is configured and `signature` is the correct signature of
   * the exact `rawBody` bytes; compared in constant time. Missing values are false.
   */
  verify(rawBody: Buffer, signature: string | undefined): boolean;

  /**
   * False when no body could ever verify with this signature header: no secret is configured,
   * or the header is missing or malformed. Needs no body, so such a request can be refused
   * before its body is read. True does not mean the signature is right.
   */
  couldVerify(signature: string | undefined): boolean;
}
