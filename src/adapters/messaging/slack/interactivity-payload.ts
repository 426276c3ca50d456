import { parse as parseRefusingProto } from '@hapi/bourne';
import { DomainError } from '../../../domain/errors/domain-error.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../shared/json-depth.js';

/**
 * The value of an interactivity form's `payload` field, under the rules every JSON body gets
 * (adapters/http/middleware/parse-json.ts and accept-json-value.ts): nesting deeper than
 * MAX_JSON_DEPTH is refused, told from the text before it is parsed (nestedDeeperThan: without
 * recursion, and before JSON.parse spends time growing faster than the depth — a megabyte of
 * `[` held the event loop about a second, closed or not), and so is a `__proto__` key
 * (@hapi/bourne). Slack's payloads stay under 10 levels.
 * @throws DomainError `invalid_input` (a 400): too deep, not JSON, a `__proto__` key.
 */
export const parseInteractivityPayload = (text: string): unknown => {
  if (nestedDeeperThan(text, MAX_JSON_DEPTH))
    throw new DomainError('invalid_input', `The interactivity payload is nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return parseRefusingProto(text, { protoAction: 'error' });
  } catch {
    throw new DomainError('invalid_input', 'The interactivity payload is not JSON, or sets __proto__');
  }
};
