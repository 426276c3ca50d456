/**
 * The installation's random key for fingerprints of what may hold secrets (an action's
 * definition: actionFingerprint; a schedule's: scheduleFingerprint). Made once per installation,
 * kept in its database, so every replica and every restart makes the same fingerprints; never
 * shown, logged or given out.
 */
export interface FingerprintKey {
  /** HMAC-SHA-256 of `text` (UTF-8) under the key, as 64 lower-case hex digits. Deterministic. */
  mac(text: string): string;
}
