import { DomainError } from '../errors/domain-error.js';
import { unprintableNameProblem } from '../triggers/validate-triggers.js';

export const MAX_KEY_NAME_LENGTH = 100;

/**
 * A key's name is how operators recognise it: required, trimmed, bounded, and printable by the
 * rule trigger and schedule names follow (unprintableNameProblem): no control character and no
 * invisible one (bidirectional controls, zero widths) that would make two names that read alike
 * differ, or reorder a page's text; the zero-width joiner and non-joiner of emoji and scripts stay.
 * Keys named before this rule keep their names (listed and revoked as ever, shown escaped).
 */
export const validateKeyName = (raw: unknown): string => {
  if (typeof raw !== 'string' || raw.trim() === '') {
    throw new DomainError('invalid_input', 'Missing key name');
  }
  const name = raw.trim();
  if (name.length > MAX_KEY_NAME_LENGTH) {
    throw new DomainError('invalid_input', `Key name is longer than ${MAX_KEY_NAME_LENGTH} characters`);
  }
  const problem = unprintableNameProblem(name);
  if (problem !== undefined) throw new DomainError('invalid_input', `Key name ${problem}`);
  return name;
};
