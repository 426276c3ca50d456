/** Slow, salted hashing of the admin password. */
export interface PasswordHasher {
  /** A self-describing hash (algorithm, parameters, salt, digest). */
  hash(password: string): Promise<string>;
  /** Whether `password` matches `stored`, in constant time; false for a malformed `stored`. */
  verify(password: string, stored: string): Promise<boolean>;
}
