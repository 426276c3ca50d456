/** The cryptography of API keys, kept behind a port so the core stays free of I/O and randomness. */
export interface ApiKeyCrypto {
  /** A new random key in the format of `domain/auth/apiKeyFormat`. */
  mint(): string;
  /** The stored form of a key: lower-case hex SHA-256. Deterministic. */
  digest(key: string): string;
  /**
   * Constant-time equality of two digests. Values of different lengths, and empty
   * values, are never equal.
   */
  equal(a: string, b: string): boolean;
}
