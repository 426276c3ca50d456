import { type Schedule, scheduleDefinition } from '../../domain/schedules/schedule.js';
import type { FingerprintKey } from '../../ports/fingerprint-key.js';

/** Marks a fingerprint made with the installation's key. */
const KEYED = 'k:';
/**
 * Hex digits of the MAC kept: 62 (248 bits), so that `k:` and the MAC fit `schedule_runs.fingerprint`
 * (varchar(64)) as the unkeyed fingerprints did, without a migration.
 */
const MAC_DIGITS = 62;
/** What versions up to 2026-12-01 recorded: SHA-256 of the definition (webhook headers included), unkeyed, 64 hex digits. */
const LEGACY = /^[0-9a-f]{64}$/;

/**
 * The fingerprint of a schedule's definition (scheduleDefinition: its expression, time zone and
 * actions), as its occurrence records (`schedule_runs.fingerprint`) and tasks keep it: `k:` and
 * HMAC-SHA-256 of the definition under the installation's random key (the FingerprintKey the
 * triggers' action fingerprints are made with), cut to 62 hex digits. Keyed, because the
 * definition holds secrets (a webhook's header values, a URL whose path or query is its
 * credential), and an unkeyed hash of it kept in the database could be searched offline for a
 * weak one.
 */
export const scheduleFingerprint = (schedule: Schedule, key: FingerprintKey): string => `${KEYED}${key.mac(scheduleDefinition(schedule)).slice(0, MAC_DIGITS)}`;

/**
 * The fingerprint versions up to 2026-12-01 recorded (SHA-256 of the definition, unkeyed). Never
 * recorded any more; computed only to compare with a record those versions wrote.
 */
export const legacyScheduleFingerprint = async (schedule: Schedule): Promise<string> => {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(scheduleDefinition(schedule)));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
};

/** Whether `recorded` was made before fingerprints were keyed (legacyScheduleFingerprint). */
export const isLegacyScheduleFingerprint = (recorded: string): boolean => LEGACY.test(recorded);

/**
 * Whether `recorded` (a record's fingerprint) is `schedule`'s, in whichever form it was recorded:
 * keyed, or unkeyed as versions up to 2026-12-01 wrote it — so that the first start-up after the
 * upgrade neither takes every schedule for a changed one nor skips catching up.
 */
export const isScheduleFingerprintOf = async (recorded: string, schedule: Schedule, key: FingerprintKey): Promise<boolean> => {
  if (isLegacyScheduleFingerprint(recorded)) return recorded === (await legacyScheduleFingerprint(schedule));
  return recorded === scheduleFingerprint(schedule, key);
};
