import type { TriggerAction } from './trigger.js';

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

/**
 * What an action is, as 16 hex digits (FNV-1a, 64 bits, over its definition as canonical
 * JSON, its `approval` flag left out): an approval records it, and the approved action runs
 * only while the action in its place still has it — any change of its command, URL, headers,
 * vars, prompt, provider or model (a reload) shows. Not a secret and not a defence against
 * whoever writes the trigger file: it tells a changed definition from the one shown.
 */
export const actionFingerprint = (action: TriggerAction): string => {
  const { approval: _approval, ...definition } = action;
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(canonical(definition))) {
    hash ^= BigInt(byte);
    hash = (hash * FNV_PRIME) & MASK;
  }
  return hash.toString(16).padStart(16, '0');
};
