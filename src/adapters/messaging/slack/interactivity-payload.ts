import { parse as parseRefusingProto } from '@hapi/bourne';
import { DomainError } from '../../../domain/errors/domain-error.js';

/**
 * Deepest nesting of arrays and objects the JSON of an interactivity form's `payload` may have
 * (the top-level object is level 1): the limit every JSON body gets at the HTTP edge
 * (adapters/http/middleware/accept-json-value.ts, MAX_JSON_DEPTH), which an adapter of another
 * kind may not import. Slack's payloads stay under 10 levels.
 */
export const MAX_PAYLOAD_DEPTH = 64;

const isContainer = (value: unknown): value is Record<string, unknown> | unknown[] => typeof value === 'object' && value !== null;

/**
 * The value of an interactivity form's `payload` field, under the rules every JSON body gets
 * (adapters/http/middleware/parse-json.ts and accept-json-value.ts): a `__proto__` key is
 * refused (@hapi/bourne), and so is nesting deeper than MAX_PAYLOAD_DEPTH, checked without
 * recursion so that a hostile payload cannot exhaust the stack.
 * @throws DomainError `invalid_input` (a 400): not JSON, a `__proto__` key, too deep.
 */
export const parseInteractivityPayload = (text: string): unknown => {
  let value: unknown;
  try {
    value = parseRefusingProto(text, { protoAction: 'error' });
  } catch {
    throw new DomainError('invalid_input', 'The interactivity payload is not JSON, or sets __proto__');
  }
  if (!isContainer(value)) return value;
  const pending: Array<readonly [Record<string, unknown> | unknown[], number]> = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (depth > MAX_PAYLOAD_DEPTH) throw new DomainError('invalid_input', `The interactivity payload is nested deeper than ${MAX_PAYLOAD_DEPTH} levels`);
    for (const child of Array.isArray(node) ? node : Object.values(node)) if (isContainer(child)) pending.push([child, depth + 1]);
  }
  return value;
};
