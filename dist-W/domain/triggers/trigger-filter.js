import { fieldValue } from '../templates/template-tokens.js';
import { checkRegex, MAX_REGEX_INPUT } from './safe-regex.js';
const PATH = /^(body|query|headers)((?:\.[^\s.{}]+)+)$/;
const OPERATORS = ['equals', 'in', 'prefix', 'regex'];
const isScalar = (value) => value === null || ['string', 'number', 'boolean'].includes(typeof value);
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
/**
 * Validates a trigger's `when`: an object of request paths to tests, for example
 * `{"body.ref": {"equals": "refs/heads/main"}, "headers.x-github-event": {"in": ["push"]}}`.
 * Returns the conditions (in file order), or undefined after reporting each problem.
 */
export const validateWhen = (raw, report) => {
    if (!isObject(raw) || Object.keys(raw).length === 0) {
        report('when', 'must be an object of request paths (body.…, query.…, headers.…) to tests, with at least one entry');
        return undefined;
    }
    let valid = true;
    const fail = (field, message) => {
        valid = false;
        report(field, message);
    };
    const conditions = [];
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
        for (const operator of Object.keys(tests))
            if (!OPERATORS.includes(operator))
                fail(`${where}.${operator}`, `unknown test; one of ${OPERATORS.join(', ')}`);
        const condition = {
            path,
            source: parts[1],
            field: parts[2],
        };
        if ('equals' in tests) {
            if (isScalar(tests.equals))
                condition.equals = tests.equals;
            else
                fail(`${where}.equals`, 'must be a string, number, true, false or null');
        }
        if ('in' in tests) {
            const list = tests.in;
            if (Array.isArray(list) && list.length > 0 && list.every(isScalar))
                condition.in = list;
            else
                fail(`${where}.in`, 'must be a non-empty array of strings, numbers, true, false or null');
        }
        if ('prefix' in tests) {
            if (typeof tests.prefix === 'string' && tests.prefix !== '')
                condition.prefix = tests.prefix;
            else
                fail(`${where}.prefix`, 'must be a non-empty string');
        }
        if ('regex' in tests) {
            const problem = typeof tests.regex === 'string' ? checkRegex(tests.regex) : 'must be a string';
            if (problem === undefined)
                condition.regex = new RegExp(tests.regex, 'u');
            else
                fail(`${where}.regex`, problem);
        }
        conditions.push(condition);
    }
    return valid ? conditions : undefined;
};
const equal = (value, expected) => value === expected;
/** Whether the request passes one condition: every test given must hold. A missing field passes none. */
const passes = (condition, request) => {
    const value = fieldValue(condition.source, condition.field, request);
    if (value === undefined)
        return false;
    if ('equals' in condition && !equal(value, condition.equals))
        return false;
    if (condition.in !== undefined && !condition.in.some((expected) => equal(value, expected)))
        return false;
    if (condition.prefix !== undefined && !(typeof value === 'string' && value.startsWith(condition.prefix)))
        return false;
    if (condition.regex !== undefined && !(typeof value === 'string' && value.length <= MAX_REGEX_INPUT && condition.regex.test(value)))
        return false;
    return true;
};
/** Whether the request passes every condition of a trigger's `when` (AND); no conditions pass everything. */
export const passesWhen = (conditions, request) => (conditions ?? []).every((condition) => passes(condition, request));
/** A condition as operators read it: `body.ref equals "refs/heads/main"`, tests joined by `and`. */
export const describeCondition = (condition) => {
    const tests = [];
    if ('equals' in condition)
        tests.push(`equals ${JSON.stringify(condition.equals)}`);
    if (condition.in !== undefined)
        tests.push(`in ${JSON.stringify(condition.in)}`);
    if (condition.prefix !== undefined)
        tests.push(`starts with ${JSON.stringify(condition.prefix)}`);
    if (condition.regex !== undefined)
        tests.push(`matches /${condition.regex.source}/`);
    return `${condition.path} ${tests.join(' and ')}`;
};
//# sourceMappingURL=trigger-filter.js.map