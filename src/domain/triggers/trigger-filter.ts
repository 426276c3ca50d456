import { isRawJson, rawJsonText } from '../templates/exact-json.js';
import type { RequestSnapshot } from '../templates/request-snapshot.js';
import { fieldValue } from '../templates/template-tokens.js';
import { checkRegex, MAX_REGEX_INPUT } from './safe-regex.js';

type Scalar = string | number | boolean | null;

/** One test of a trigger's `when`: a request field and what it must satisfy (every given test). */
export interface TriggerCondition {
  /** As written in the file: `body.ref`, `query.name`, `headers.x-github-event`. */
  readonly path: string;
  readonly source: 'body' | 'query' | 'headers';
  /** The dotted path after the source, with its leading dot (`.ref`), as template tokens read it. */
  readonly field: string;
  readonly equals?: Scalar;
  readonly in?: readonly Scalar[];
  readonly prefix?: string;
  readonly regex?: RegExp;
}

const PATH = /^(body|query|headers)((?:\.[^\s.{}]+)+)$/;
const OPERATORS = ['equals', 'in', 'prefix', 'regex'];
const isScalar = (value: unknown): value is Scalar => value === null || ['string', 'number', 'boolean'].includes(typeof value);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

type Report = (field: string, message: string) => void;

/**
 * Validates a trigger's `when`: an object of request paths to tests, for example
 * `{"body.ref": {"equals": "refs/heads/main"}, "headers.x-github-event": {"in": ["push"]}}`.
 * Returns the conditions (in file order), or undefined after reporting each problem.
 */
export const validateWhen = (raw: unknown, report: Report): TriggerCondition[] | undefined => {
  if (!isObject(raw) || Object.keys(raw).length === 0) {
    report('when', 'must be an object of request paths (body.…, query.…, headers.…) to tests, with at least one entry');
    return undefined;
  }
  let valid = true;
  const fail: Report = (field, message) => {
    valid = false;
    report(field, message);
  };
  const conditions: TriggerCondition[] = [];
  for (const [path, tests] of Object.entries(raw)) {
    const where = `when.${path}`;
    const parts = PATH.exec(path);
    if (parts === null) {
      fail(where, 'must be a request path like body.ref, query.name or headers.x-github-event');
      continue;
    }
    if (!isObject(tests) || Object.keys(tests).length === 0) {
      fail(where, `must be an object with one or more of ${OPERATORS.join(', ')}`);
      continue;
    }
    for (const operator of Object.keys(tests)) if (!OPERATORS.includes(operator)) fail(`${where}.${operator}`, `unknown test; one of ${OPERATORS.join(', ')}`);
    const condition: { -readonly [K in keyof TriggerCondition]: TriggerCondition[K] } = {
      path,
      source: parts[1] as TriggerCondition['source'],
      field: parts[2],
    };
    if ('equals' in tests) {
      if (isScalar(tests.equals)) condition.equals = tests.equals;
      else fail(`${where}.equals`, 'must be a string, number, true, false or null');
    }
    if ('in' in tests) {
      const list = tests.in;
      if (Array.isArray(list) && list.length > 0 && list.every(isScalar)) condition.in = list;
      else fail(`${where}.in`, 'must be a non-empty array of strings, numbers, true, false or null');
    }
    if ('prefix' in tests) {
      if (typeof tests.prefix === 'string' && tests.prefix !== '') condition.prefix = tests.prefix;
      else fail(`${where}.prefix`, 'must be a non-empty string');
    }
    if ('regex' in tests) {
      const problem = typeof tests.regex === 'string' ? checkRegex(tests.regex) : 'must be a string';
      if (problem === undefined) condition.regex = new RegExp(tests.regex as string, 'u');
      else fail(`${where}.regex`, problem);
    }
    conditions.push(condition);
  }
  return valid ? conditions : undefined;
};

/**
 * `equals` and `in`: the same JSON value. A number of the body a double cannot hold (a 64-bit
 * id, kept as its text: exact-json.ts) equals a string of the trigger file holding exactly its
 * digits (`"equals": "12345678901234567891"`), the only way to compare it exactly — the trigger
 * file's own numbers are doubles; it equals a number of the file when both round to the same
 * double, as they did before such numbers were kept (a neighbouring id can match too).
 */
const equal = (value: unknown, expected: Scalar): boolean => {
  if (!isRawJson(value)) return value === expected;
  if (typeof expected === 'string') return rawJsonText(value) === expected;
  return typeof expected === 'number' && Number(rawJsonText(value)) === expected;
};

/** Whether the request passes one condition: every test given must hold. A missing field passes none. */
const passes = (condition: TriggerCondition, request: RequestSnapshot): boolean => {
  const value = fieldValue(condition.source, condition.field, request);
  if (value === undefined) return false;
  if ('equals' in condition && !equal(value, condition.equals as Scalar)) return false;
  if (condition.in !== undefined && !condition.in.some((expected) => equal(value, expected))) return false;
  if (condition.prefix !== undefined && !(typeof value === 'string' && value.startsWith(condition.prefix))) return false;
  if (condition.regex !== undefined && !(typeof value === 'string' && value.length <= MAX_REGEX_INPUT && condition.regex.test(value))) return false;
  return true;
};

/** Whether the request passes every condition of a trigger's `when` (AND); no conditions pass everything. */
export const passesWhen = (conditions: readonly TriggerCondition[] | undefined, request: RequestSnapshot): boolean =>
  (conditions ?? []).every((condition) => passes(condition, request));

/** A condition as operators read it: `body.ref equals "refs/heads/main"`, tests joined by `and`. */
export const describeCondition = (condition: TriggerCondition): string => {
  const tests: string[] = [];
  if ('equals' in condition) tests.push(`equals ${JSON.stringify(condition.equals)}`);
  if (condition.in !== undefined) tests.push(`in ${JSON.stringify(condition.in)}`);
  if (condition.prefix !== undefined) tests.push(`starts with ${JSON.stringify(condition.prefix)}`);
  if (condition.regex !== undefined) tests.push(`matches /${condition.regex.source}/`);
  return `${condition.path} ${tests.join(' and ')}`;
};
