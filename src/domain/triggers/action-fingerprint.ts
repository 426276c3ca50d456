import type { TriggerAction } from './trigger.js';
import { shownWebhookTarget } from './webhook-target.js';

/** JSON with every object's keys in order, so that equal values give equal text. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonical(field)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

/** FNV-1a, 64 bits, as 16 hex digits: fast and unkeyed, so only ever over text that holds no secret. */
const fnv = (text: string): string => {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * FNV_PRIME) & MASK;
  }
  return hash.toString(16).padStart(16, '0');
};

/** The action's definition as canonical JSON, its `approval` flag left out. */
const definitionOf = (action: TriggerAction): string => {
  const { approval: _approval, ...definition } = action;
  return canonical(definition);
};

/** A MAC under the installation's random key (the FingerprintKey port): what a fingerprint of secrets is made with. */
export interface FingerprintMac {
  /** Deterministic for one key; without the key, nothing about `text` can be tested against it. */
  mac(text: string): string;
}

/** The names of an object's fields, each with an empty value. */
const blank = (fields: Readonly<Record<string, unknown>>): Record<string, string> => Object.fromEntries(Object.keys(fields).map((name) => [name, '']));

/** Marks a fingerprint made with the installation's key, and one made without it (secrets left out). */
const KEYED = 'k:';
const PUBLIC = 'p:';
/** What versions up to 2026-12-01 recorded: 16 hex digits, FNV-1a over the whole definition (headers included). */
const LEGACY = /^[0-9a-f]{16}$/;

/**
 * What an action is, as its records keep it (`detail.action`, `detail.actions`): an approval
 * records it, and the approved action runs only while the action in its place still has it; a
 * run's records are matched with the actions by it. Any change of the action's command, URL,
 * headers, vars, prompt, provider or model (a reload) shows.
 *
 * The definition holds secrets (a webhook's header values, a URL whose path or query is its
 * credential), and a fast hash of it kept in the database could be searched offline for a weak
 * one: so it is a MAC under the installation's random key (`k:` and the MAC). Without a key (a
 * test, a tool that has none), the secrets are left out instead (`p:` and FNV-1a over the
 * definition with each webhook URL as shownWebhookTarget shows it and the values of its headers and vars blank):
 * a change of them alone does not show then. Not a defence against whoever writes the trigger
 * file: it tells a changed definition from the one recorded.
 */
export const actionFingerprint = (action: TriggerAction, key?: FingerprintMac): string => {
  if (key !== undefined) return `${KEYED}${key.mac(definitionOf(action))}`;
  const withoutSecrets: TriggerAction =
    action.type === 'webhook' ? { ...action, url: shownWebhookTarget(action.url), headers: blank(action.headers), vars: blank(action.vars) } : action;
  return `${PUBLIC}${fnv(definitionOf(withoutSecrets))}`;
};

/**
 * The fingerprint versions up to 2026-12-01 recorded (FNV-1a over the whole definition). Never
 * recorded any more; computed only to compare with a record those versions wrote (a pending
 * approval, a run under way at the upgrade), so that the upgrade does not make it look changed.
 */
export const legacyActionFingerprint = (action: TriggerAction): string => fnv(definitionOf(action));

/**
 * Whether `recorded` (a record's fingerprint) is `action`'s, in whichever form it was recorded:
 * keyed (only with the key), without secrets, or as versions up to 2026-12-01 wrote it.
 */
export const isFingerprintOf = (recorded: string, action: TriggerAction, key?: FingerprintMac): boolean => {
  if (LEGACY.test(recorded)) return recorded === legacyActionFingerprint(action);
  if (recorded.startsWith(KEYED)) return key !== undefined && recorded === actionFingerprint(action, key);
  return recorded === actionFingerprint(action);
};
