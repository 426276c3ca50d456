/**
 * What a trigger filter's `regex` may be. JavaScript regular expressions backtrack, so a pattern
 * such as `(a+)+$` or `.*.*x` can take seconds or years on a value a caller chose. The trigger file
 * is written by operators but the value comes from the request, so patterns are held to a shape
 * whose worst case stays small on the values they are tested against (MAX_REGEX_INPUT):
 * - at most MAX_REGEX_LENGTH characters, valid with the `u` flag;
 * - no back-references (`\1`, `\k<name>`);
 * - no quantifier on a group that holds a quantifier or an alternation (`(a+)+`, `(a|ab)*`):
 *   the exponential cases. The flags go up through every enclosing group, so one more pair of
 *   parentheses (`((a|ab))*`, `(?:(?:a+))+`) hides nothing;
 * - at most MAX_VARIABLE_QUANTIFIERS quantifiers of variable length (`*`, `+`, `?`, `{n,}`,
 *   `{n,m}`), which keeps the polynomial cases (`.*.*.*x`) in check;
 * - at most MAX_ALTERNATIVE_PATHS ways through its alternatives, which multiply in a sequence
 *   (`(a|a)(a|a)…` backtracks through every combination: 2^k without any quantifier), and none
 *   besides the one when it has MAX_VARIABLE_QUANTIFIERS quantifiers of variable length (each way
 *   multiplies the polynomial case: `.*.*(a|a)(a|a)x` takes four times `.*.*x`).
 */
export const MAX_REGEX_LENGTH = 200;
export const MAX_VARIABLE_QUANTIFIERS = 2;
export const MAX_ALTERNATIVE_PATHS = 16;
/** Values longer than this (in UTF-16 code units) never match a `regex` test. */
export const MAX_REGEX_INPUT = 512;

/** A pattern's problem, or undefined when it is accepted. */
export const checkRegex = (source: string): string | undefined => {
  if (source.length === 0) return 'must be a non-empty pattern';
  if (source.length > MAX_REGEX_LENGTH) return `at most ${MAX_REGEX_LENGTH} characters`;
  try {
    new RegExp(source, 'u');
  } catch (error) {
    return `not a valid regular expression (${(error as Error).message})`;
  }
  return checkShape(source);
};

interface Group {
  quantified: boolean; // holds a quantifier, at any depth
  alternation: boolean; // holds a |, at any depth
  paths: number; // ways through the alternatives closed so far (the branches before the last |)
  branch: number; // ways through the branch under way (the product of its groups' ways)
}

const newGroup = (): Group => ({ quantified: false, alternation: false, paths: 0, branch: 1 });
/** Ways through a group's alternatives, capped so that a product never overflows. */
const waysThrough = (group: Group): number => Math.min(group.paths + group.branch, Number.MAX_SAFE_INTEGER);

/** Walks the (already valid) pattern once, tracking groups; character classes are skipped whole. */
const checkShape = (source: string): string | undefined => {
  const groups: Group[] = [newGroup()];
  let variable = 0;
  let lastClosed: Group | undefined; // the group just closed, when the next token may quantify it
  let i = 0;
  while (i < source.length) {
    const char = source[i];
    const closed = lastClosed;
    lastClosed = undefined;
    if (char === '\\') {
      const next = source[i + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') return 'back-references (\\1, \\k<name>) are not allowed';
      i += next === 'u' && source[i + 2] === '{' ? source.indexOf('}', i) + 1 - i : 2;
      continue;
    }
    if (char === '[') {
      i = endOfClass(source, i);
      continue;
    }
    if (char === '(') {
      groups.push(newGroup());
      i +=
        source.startsWith('(?<', i) && !source.startsWith('(?<=', i) && !source.startsWith('(?<!', i)
          ? source.indexOf('>', i) + 1 - i
          : source[i + 1] === '?'
            ? 3
            : 1;
      continue;
    }
    if (char === ')') {
      const group = groups.pop() as Group;
      const parent = groups[groups.length - 1];
      // Both flags go up: a group quantified later holds what any group inside it holds.
      parent.quantified ||= group.quantified;
      parent.alternation ||= group.alternation;
      parent.branch = Math.min(parent.branch * waysThrough(group), Number.MAX_SAFE_INTEGER);
      lastClosed = group;
      i += 1;
      continue;
    }
    if (char === '|') {
      const group = groups[groups.length - 1];
      group.alternation = true;
      group.paths = waysThrough(group);
      group.branch = 1;
      i += 1;
      continue;
    }
    const quantifier = /^(?:[*+?]|\{\d+(?:,\d*)?\})\??/.exec(source.slice(i))?.[0];
    if (quantifier !== undefined) {
      if (closed?.quantified) return 'a quantifier on a group that holds a quantifier (like (a+)+) can take exponential time';
      if (closed?.alternation) return 'a quantifier on a group with alternatives (like (a|ab)*) can take exponential time';
      if (!/^\{(\d+)\}\??$/.test(quantifier)) variable += 1;
      if (variable > MAX_VARIABLE_QUANTIFIERS)
        return `at most ${MAX_VARIABLE_QUANTIFIERS} quantifiers of variable length (*, +, ?, {n,m}) so that matching stays fast`;
      groups[groups.length - 1].quantified = true;
      i += quantifier.length;
      continue;
    }
    i += 1;
  }
  const paths = waysThrough(groups[0]);
  if (paths > MAX_ALTERNATIVE_PATHS)
    return `at most ${MAX_ALTERNATIVE_PATHS} ways through the alternatives (they multiply: (a|b)(c|d) has 4), found ${paths} that matching may all try`;
  if (paths > 1 && variable >= MAX_VARIABLE_QUANTIFIERS)
    return `alternatives (|) and ${MAX_VARIABLE_QUANTIFIERS} quantifiers of variable length multiply each other's cost: keep one quantifier of variable length, or no alternatives`;
  return undefined;
};

/** The index after the character class opening at `start` (`[]` is the empty class with `u`). */
const endOfClass = (source: string, start: number): number => {
  let i = start + 1;
  if (source[i] === '^') i += 1;
  while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
  return i + 1;
};
