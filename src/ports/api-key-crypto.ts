/** The cryptography of API keys and shared secrets, kept behind a port so the core stays free of I/O and randomness. */
export interface ApiKeyCrypto {
  /** A new random key in the format of `domain/auth/apiKeyFormat`. */
  mint(): string;
  /**
   * A new random shared secret (a webhook secret): 32 random bytes in base64url, 43
   * characters of `A-Za-z0-9_-`.
   */
  secret(): string;
  /** The stored form of a key: lower-case hex SHA-256. Deterministic. */
  digest(key: string): string;
  /**
   * Constant-time equality of two digests. Values of different lengths, and empty
   * values, are never equal.
   */
  equal(a: string, b: string): boolean;
}
