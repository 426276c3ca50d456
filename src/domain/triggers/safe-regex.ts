/**
 * What a trigger filter's `regex` may be. JavaScript regular expressions backtrack, so a pattern
 * such as `(a+)+$` or `.*.*x` can take seconds or years on a value a caller chose. The trigger file
 * is written by operators but the value comes from the request, so patterns are held to a shape
 * whose worst case stays small on the values they are tested against (MAX_REGEX_INPUT):
 * - at most MAX_REGEX_LENGTH characters, valid with the `u` flag;
 * - no back-references (`\1`, `\k<name>`);
 * - no quantifier on a group that holds a quantifier or an alternation (`(a+)+`, `(a|ab)*`):
 *   the exponential cases. The flags go up through every enclosing group, so one more pair of
 *   parentheses (`((a|ab))*`, `(?:(?:a+))+`) hides nothing. A group that holds a quantifier may
 *   be repeated by `?` or `{n,m}` with m at most MAX_GROUP_REPEAT (once per nesting), which is no
 *   repetition that can nest: regexSteps counts it written out (`(X){1,3}` as `X(?:X(?:X)?)?`).
 *   A group that holds an alternation may be made optional (`?`, `{0,1}`): `(a|b)?` is
 *   `(?:a|b|)`, one more alternative, counted so in the ways and the steps. It may be repeated
 *   only when its alternatives are words of single characters no two of which can match from
 *   one position (deterministicWords: `(a|b)+`, `(ab|cd)*`, `([a-z]|[0-9]){2,}`; groups of
 *   alternatives inside written out, `((a|b)(c|d))+` as `(ac|ad|bc|bd)+`), compared as
 *   written (not in `(?i:…)` nor a lookbehind): a repetition then goes on in one way only, as
 *   `[ab]+` does, and is counted as a quantifier of one character is (each repetition paying
 *   its words' steps and one more); `(a|a)+`, `(a|ab)+`, `(a|)+`, `(\w|\d)+` stay refused;
 * - at most MAX_ALTERNATIVE_PATHS ways through groups of alternatives in a sequence, which
 *   multiply (`(a|a)(a|a)…` backtracks through every combination: 2^k without any quantifier),
 *   and at most MAX_GROUP_WAYS through one group, whose alternatives add up (each is tried once
 *   per way in: `^(main|develop|…17 names)$` is cheap);
 * - at most MAX_REGEX_STEPS steps in the worst case on a MAX_REGEX_INPUT value, by the cost model
 *   of regexSteps: the polynomial cases. Each quantifier of variable length whose lengths can all
 *   go on multiplies the ways the rest is tried by up to 513, and so does an unanchored start
 *   (every position is a start): `.*.*x` (513^3, about 270 million steps) and `\s*\s*x` are refused,
 *   `^.*.*x`, `.*x`, `.*fix.*` (a final quantifier's first length is a match) and
 *   `^v[0-9]+\.[0-9]+\.[0-9]+$` (no digit run can end anywhere but before its `.`) are accepted.
 *   Measured on the worst values we built for accepted patterns: at most 12 ms (1.8 million
 *   counted steps of \p{L}); refused `.*.*x` took 146-236 ms. Groups under `?`/`{n,m}` and long
 *   single groups of alternatives: at most 9.3 ms (`(?<=\p{L}*)` x5 then `(\p{L}*)?!`).
 *   Alternatives that cannot both match from one position (`feat|fix|chore`: they differ at a
 *   character after as many single characters) give the ways of one of them, not their sum:
 *   `(feat|fix|chore).*urgent` counts as `feat.*urgent` plus each word's own steps. A word of
 *   single characters lets on at most the ways at the places it can occur (`occurrences`: once
 *   per its period, `fix` 170 times in 512 characters), which bounds alternatives that can both
 *   match (`fix|fixup`: 272 ways on, not 1 026): `(fix|fixup).*(urgent|asap).+` is accepted.
 *   Measured (docs/triggers.md), the slowest of these shapes took 0.9-1.2 times the 1.8-million-step
 *   reference above.
 */
export const MAX_REGEX_LENGTH = 200;
export const MAX_ALTERNATIVE_PATHS = 16;
export const MAX_GROUP_WAYS = 256;
export const MAX_GROUP_REPEAT = 4;
/** Values longer than this (in UTF-16 code units) never match a `regex` test. */
export const MAX_REGEX_INPUT = 512;

const TOO_SLOW =
  'quantifiers of variable length that can match the same characters multiply the ways matching backtracks through (and an unanchored pattern is tried from every position), so it can block the gateway';
const INSTEAD =
  'anchor it (^…), keep one such quantifier (a match need not cover the value: fix rather than .*fix.*), or end each run with a character it cannot match ([^/]*/ rather than .*/)';
const millions = (steps: number): string => (steps >= 1e9 ? 'over a billion' : `about ${(steps / 1e6).toFixed(1)} million`);

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
  start: number; // the index of its opening parenthesis (0 for the pattern)
  end: number; // the index after its closing parenthesis, once closed
  kind: 'plain' | 'look' | 'lookbehind' | 'modifier';
  quantified: boolean; // holds a quantifier, at any depth
  alternation: boolean; // holds a |, at any depth
  repeated: boolean; // holds, at any depth, a group that holds a quantifier repeated up to 2-MAX_GROUP_REPEAT times
  paths: number; // ways through the alternatives closed so far (the branches before the last |)
  branch: number; // ways through the branch under way (the product of its groups' ways)
  factors: number; // groups of more than one way in the branch under way
  product: number; // the largest product of two or more groups' ways in a sequence, at any depth
  widest: number; // the most ways through one group, at any depth
}

const newGroup = (start = 0, kind: Group['kind'] = 'plain'): Group => ({
  start,
  end: 0,
  kind,
  quantified: false,
  alternation: false,
  repeated: false,
  paths: 0,
  branch: 1,
  factors: 0,
  product: 0,
  widest: 0,
});
/** What a group opening (`(`, `(?:`, `(?<name>`, `(?=`, `(?<=`, `(?i:`…) makes of its content. */
const groupKind = (source: string, at: number): Group['kind'] => {
  if (source[at + 1] !== '?') return 'plain';
  if (source.startsWith('(?<=', at) || source.startsWith('(?<!', at)) return 'lookbehind';
  if (source.startsWith('(?=', at) || source.startsWith('(?!', at)) return 'look';
  return source.startsWith('(?:', at) || source.startsWith('(?<', at) ? 'plain' : 'modifier';
};
/** Ways through a group's alternatives, capped so that a product never overflows. */
const waysThrough = (group: Group): number => Math.min(group.paths + group.branch, Number.MAX_SAFE_INTEGER);
/** Records the branch under way: alternatives in a sequence multiply, one group's alternatives add up. */
const endBranch = (group: Group): void => {
  if (group.factors >= 2) group.product = Math.max(group.product, group.branch);
};
/** A closed group's ways in its parent's branch: a sequence's groups multiply their ways. */
const addWays = (parent: Group, ways: number): void => {
  parent.widest = Math.max(parent.widest, ways);
  parent.branch = Math.min(parent.branch * ways, Number.MAX_SAFE_INTEGER);
  if (ways > 1) parent.factors += 1;
};
/** The most times a quantifier repeats its atom: 1 for ?, m for {n,m}, Infinity for *, + and {n,}. */
const maxRepetitions = (quantifier: string): number => {
  if (quantifier.startsWith('?')) return 1;
  const bounds = /^\{(\d+)(,(\d*))?\}/.exec(quantifier);
  if (bounds === null) return Infinity;
  return bounds[2] === undefined ? Number(bounds[1]) : bounds[3] === '' ? Infinity : Number(bounds[3]);
};

/** Walks the (already valid) pattern once, tracking groups; character classes are skipped whole. */
const checkShape = (source: string): string | undefined => {
  const groups: Group[] = [newGroup()];
  let lastClosed: Group | undefined; // the group just closed, when the next token may quantify it
  let i = 0;
  while (i < source.length) {
    const char = source[i];
    const closed = lastClosed;
    lastClosed = undefined;
    const quantifier = /^(?:[*+?]|\{\d+(?:,\d*)?\})\??/.exec(source.slice(i))?.[0];
    // A group just closed counts its ways in the enclosing one now, when no quantifier follows it.
    if (closed !== undefined && quantifier === undefined) addWays(groups[groups.length - 1], waysThrough(closed));
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
      groups.push(newGroup(i, groupKind(source, i)));
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
      group.end = i + 1;
      endBranch(group);
      // The flags go up: a group quantified later holds what any group inside it holds.
      parent.quantified ||= group.quantified;
      parent.alternation ||= group.alternation;
      parent.repeated ||= group.repeated;
      parent.product = Math.max(parent.product, group.product);
      parent.widest = Math.max(parent.widest, group.widest);
      lastClosed = group; // its ways go to the parent with the next token, once a quantifier is known
      i += 1;
      continue;
    }
    if (char === '|') {
      const group = groups[groups.length - 1];
      group.alternation = true;
      endBranch(group);
      group.paths = waysThrough(group);
      group.branch = 1;
      group.factors = 0;
      i += 1;
      continue;
    }
    if (quantifier !== undefined) {
      const max = maxRepetitions(quantifier);
      if (closed?.quantified && (max > MAX_GROUP_REPEAT || (max > 1 && closed.repeated)))
        return `a quantifier on a group that holds a quantifier (like (a+)+) can take exponential time; only ? or {n,m} with m at most ${MAX_GROUP_REPEAT} may repeat such a group, not nested in another {n,m}`;
      // A group with alternatives may be optional: (a|b)? is (?:a|b|), one more alternative; repeated
      // only when its alternatives are words no two of which can match from one position (repeatableChoice).
      if (
        closed?.alternation &&
        max > 1 &&
        !(closed.kind === 'plain' && !closed.quantified && comparedPlainly(groups) && repeatableChoice(source.slice(closed.start, closed.end)))
      )
        return 'a quantifier on a group with alternatives (like (a|ab)*) can take exponential time, unless they are words of single characters no two of which can match from one position (like (a|b)+ or (ab|cd)+)';
      const group = groups[groups.length - 1];
      group.quantified = true;
      if (closed?.quantified && max > 1) group.repeated = true;
      // Optional, a group's ways gain one: passing it by.
      if (closed !== undefined) addWays(group, waysThrough(closed) > 1 && !/^\{[1-9]/.test(quantifier) ? waysThrough(closed) + 1 : waysThrough(closed));
      i += quantifier.length;
      continue;
    }
    i += 1;
  }
  const top = groups[0];
  if (lastClosed !== undefined) addWays(top, waysThrough(lastClosed));
  endBranch(top);
  const ways = waysThrough(top);
  if (top.product > MAX_ALTERNATIVE_PATHS)
    return `at most ${MAX_ALTERNATIVE_PATHS} ways through the alternatives (they multiply: (a|b)(c|d) has 4), found ${top.product} that matching may all try`;
  if (Math.max(ways, top.widest) > MAX_GROUP_WAYS)
    return `at most ${MAX_GROUP_WAYS} ways through one group's alternatives, found ${Math.max(ways, top.widest)}: use in for a longer list of values`;
  const steps = regexSteps(source);
  if (steps > MAX_REGEX_STEPS)
    return `${TOO_SLOW} (${millions(steps)} steps on a ${MAX_REGEX_INPUT}-character value, at most ${MAX_REGEX_STEPS / 1e6} million): ${INSTEAD}`;
  return undefined;
};

/** Whether characters compare as written inside these groups: in none of them case-insensitively (`(?i:…)`) or backwards (a lookbehind). */
const comparedPlainly = (groups: readonly Group[]): boolean => groups.every((group) => group.kind !== 'modifier' && group.kind !== 'lookbehind');

/** The index after the character class opening at `start` (`[]` is the empty class with `u`). */
const endOfClass = (source: string, start: number): number => {
  let i = start + 1;
  if (source[i] === '^') i += 1;
  while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
  return i + 1;
};

// ---- backtracking cost -------------------------------------------------------------------------

/** The value length the cost is computed for: every value tested is at most this long. */
const N = MAX_REGEX_INPUT;

type Node =
  | { kind: 'atom'; source: string; members: number[] | undefined }
  | { kind: 'assert'; which: '^' | '$' | 'other' }
  | { kind: 'group'; type: 'plain' | 'look' | 'lookbehind' | 'modifier'; alternatives: Node[][] }
  | { kind: 'quantified'; body: Node; min: number; max: number };

/** Parses a pattern already known to be valid with the `u` flag into sequences of alternatives. */
class Parser {
  #i = 0;
  constructor(private readonly source: string) {}

  parse(): Node[][] {
    return this.#alternatives();
  }

  #alternatives(): Node[][] {
    const alternatives: Node[][] = [[]];
    while (this.#i < this.source.length && this.source[this.#i] !== ')') {
      if (this.source[this.#i] === '|') {
        this.#i += 1;
        alternatives.push([]);
        continue;
      }
      const term = this.#quantify(this.#term());
      alternatives[alternatives.length - 1].push(term);
    }
    return alternatives;
  }

  #quantify(node: Node): Node {
    const match = /^(?:([*+?])|\{(\d+)(?:(,)(\d*))?\})\??/.exec(this.source.slice(this.#i));
    if (match === null) return node;
    this.#i += match[0].length;
    const [, symbol, low, comma, high] = match;
    const min = symbol !== undefined ? (symbol === '+' ? 1 : 0) : Number(low);
    const max = symbol !== undefined ? (symbol === '?' ? 1 : Infinity) : comma === undefined ? min : high === '' ? Infinity : Number(high);
    // checkShape lets only ? and {n,m} with a small m repeat a group that holds a quantifier, and
    // only ? (at most once) a group that holds an alternation: it is counted as written out,
    // (X){1,3} as X(?:X(?:X)?)?, so each copy's ways multiply the rest, and (a|b)? as (?:(a|b)|),
    // one more alternative whose ways add up with the group's.
    if (node.kind === 'group' && holdsChoice(node) && max <= MAX_GROUP_REPEAT) return writtenOut(node, min, max);
    return { kind: 'quantified', body: node, min, max };
  }

  #term(): Node {
    const { source } = this;
    const start = this.#i;
    const char = source[start];
    if (char === '^' || char === '$') {
      this.#i += 1;
      return { kind: 'assert', which: char };
    }
    if (char === '.') {
      this.#i += 1;
      return { kind: 'atom', source: '.', members: undefined };
    }
    if (char === '[') {
      this.#i = endOfClass(source, start);
      const text = source.slice(start, this.#i);
      return { kind: 'atom', source: text, members: classMembers(text) };
    }
    if (char === '(') {
      const opening = /^\((?:\?(?:<=|<!|=|!|:|<[^>]+>|[a-z]*(?:-[a-z]*)?:))?/.exec(source.slice(start))?.[0] ?? '(';
      this.#i += opening.length;
      const alternatives = this.#alternatives();
      this.#i += 1; // the closing parenthesis
      const type =
        opening === '(?<=' || opening === '(?<!'
          ? 'lookbehind'
          : opening === '(?=' || opening === '(?!'
            ? 'look'
            : opening === '(' || opening === '(?:' || opening.startsWith('(?<')
              ? 'plain'
              : 'modifier';
      return { kind: 'group', type, alternatives };
    }
    if (char === '\\') {
      const next = source[start + 1];
      if (next === 'b' || next === 'B') {
        this.#i += 2;
        return { kind: 'assert', which: 'other' };
      }
      const text =
        /^\\(?:[pP]\{[^}]*\}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}(?:\\u[0-9a-fA-F]{4})?|x[0-9a-fA-F]{2}|c[a-zA-Z]|.)/su.exec(source.slice(start))?.[0] ?? '\\';
      this.#i += text.length;
      return { kind: 'atom', source: text, members: escapeMembers(text) };
    }
    const codePoint = source.codePointAt(start) as number;
    this.#i += codePoint > 0xffff ? 2 : 1;
    return { kind: 'atom', source: String.fromCodePoint(codePoint), members: [codePoint] };
  }
}

/** The most words a repeated group's alternatives are written out to (wordsOf) to be compared: those of one group of alternatives at most. */
const MAX_WORDS = MAX_GROUP_WAYS;

/**
 * A sequence as the words of single characters it may match, through plain groups (`a(bc)` is
 * abc; `(a|b)(c|d)` is ac, ad, bc, bd; `(a|)b` is ab, b), at most MAX_WORDS of them; undefined
 * when it holds anything else (a quantifier, an assertion, a lookaround, `(?i:…)`).
 */
const wordsOf = (sequence: readonly Node[]): Node[][] | undefined => {
  let words: Node[][] = [[]];
  for (const node of sequence) {
    let choices: Node[][] = [[node]];
    if (node.kind === 'group' && node.type === 'plain') {
      const inner = node.alternatives.map(wordsOf);
      if (!inner.every((alternative): alternative is Node[][] => alternative !== undefined)) return undefined;
      choices = inner.flat();
    } else if (node.kind !== 'atom') return undefined;
    if (words.length * choices.length > MAX_WORDS) return undefined;
    words = words.flatMap((word) => choices.map((choice) => [...word, ...choice]));
  }
  return words;
};

/**
 * The alternatives of a plain group as words of single characters, when a repetition of the
 * group has at most one way on from any position: each word non-empty (a repetition moves on),
 * and either one word, or words no two of which can match from one position (`exclusive`: after
 * as many single characters, one must match a character the other cannot). Matching such a
 * repetition is then deterministic, as that of a single character is — the repetitions end at
 * one position each — so `(a|b)+` and `(ab|cd)+` backtrack as `[ab]+` does, never exponentially.
 * Groups of alternatives inside are written out (wordsOf) and compared so: `((a|b)(c|d))+` is
 * `(ac|ad|bc|bd)+`, accepted; `((a|ab)c)+` is `(ac|abc)+`, accepted; `((a|b)(a|b)|a)+` is not.
 * Undefined otherwise (`(a|ab)+`: ab and a both match from a position of `ab`; `(a|a)+`).
 * Only where characters compare as written: not in `(?i:…)` nor backwards (checkShape, walkSequence).
 */
const deterministicWords = (node: Node): Node[][] | undefined => {
  if (node.kind !== 'group' || node.type !== 'plain') return undefined;
  const words = wordsOf([node]);
  if (words === undefined || !words.every((word) => word.length > 0)) return undefined;
  return words.length === 1 || exclusive(words) ? words : undefined;
};

/** Whether a group's text (`(ab|cd)`) is one whose repetition checkShape lets through: its alternatives are deterministicWords. */
const repeatableChoice = (text: string): boolean => {
  const [sequence] = new Parser(text).parse();
  return sequence.length === 1 && deterministicWords(sequence[0]) !== undefined;
};

/** Whether a node holds, at any depth (lookarounds too), a quantifier or a group of several alternatives: what checkShape flags. */
const holdsChoice = (node: Node): boolean =>
  node.kind === 'quantified' || (node.kind === 'group' && (node.alternatives.length > 1 || node.alternatives.some((sequence) => sequence.some(holdsChoice))));

/** (X){min,max} as the sequence matching tries: X min times, then max - min nested optional copies (X? is (?:X|)). */
const writtenOut = (body: Node, min: number, max: number): Node => {
  let optional: Node[] = [];
  for (let k = min; k < max; k++) optional = [{ kind: 'group', type: 'plain', alternatives: [[body, ...optional], []] }];
  return { kind: 'group', type: 'plain', alternatives: [[...Array<Node>(min).fill(body), ...optional]] };
};

const CONTROL_ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11, '0': 0 };

/** The code point a literal or a one-character escape stands for, or undefined for a class escape (`\d`, `\w`, `\p{L}`…). */
const singleCharacter = (text: string): number | undefined => {
  if (!text.startsWith('\\')) return text.codePointAt(0);
  const body = text.slice(1);
  if (body in CONTROL_ESCAPES) return CONTROL_ESCAPES[body];
  if (/^x[0-9a-fA-F]{2}$|^u[0-9a-fA-F]{4}$/.test(body)) return Number.parseInt(body.slice(1), 16);
  if (/^u\{[0-9a-fA-F]+\}$/.test(body)) return Number.parseInt(body.slice(2, -1), 16);
  if (/^u[0-9a-fA-F]{4}\\u[0-9a-fA-F]{4}$/.test(body))
    return String.fromCharCode(Number.parseInt(body.slice(1, 5), 16), Number.parseInt(body.slice(7), 16)).codePointAt(0);
  if (/^c[a-zA-Z]$/.test(body)) return (body.codePointAt(1) as number) % 32;
  if (/^[^a-zA-Z0-9]$/u.test(body)) return body.codePointAt(0); // an identity escape: \. \/ \[ \-
  return undefined;
};

const DIGITS = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57];
/** The most characters a set may have to be listed (a separator is usually one character). */
const MAX_MEMBERS = 4096;

/** The characters an escape matches, when they can be listed. */
const escapeMembers = (text: string): number[] | undefined => {
  if (text === '\\d') return DIGITS;
  const char = singleCharacter(text);
  return char === undefined ? undefined : [char];
};

/** The characters a class matches, when it is not negated and holds only characters, ranges and \d. */
const classMembers = (text: string): number[] | undefined => {
  if (text.startsWith('[^')) return undefined;
  const items =
    text.slice(1, -1).match(/\\u\{[0-9a-fA-F]+\}|\\u[0-9a-fA-F]{4}(?:\\u[0-9a-fA-F]{4})?|\\x[0-9a-fA-F]{2}|\\c[a-zA-Z]|\\[pP]\{[^}]*\}|\\.|./gsu) ?? [];
  const members: number[] = [];
  for (let k = 0; k < items.length; k++) {
    if (items[k] === '\\d') {
      members.push(...DIGITS);
      continue;
    }
    const low = singleCharacter(items[k]);
    if (low === undefined) return undefined;
    if (items[k + 1] === '-' && k + 2 < items.length) {
      const high = singleCharacter(items[k + 2]);
      if (high === undefined || high - low > MAX_MEMBERS) return undefined;
      for (let c = low; c <= high; c++) members.push(c);
      k += 2;
    } else members.push(low);
    if (members.length > MAX_MEMBERS) return undefined;
  }
  return members;
};

/** What may come right after a quantifier, as far as it decides how many of its lengths go on: the end of the pattern, characters (`$`: none), or unknown. */
type Next = { kind: 'end' } | { kind: 'set'; members: number[] } | { kind: 'unknown' };

/** The next element of `sequence` from `index` (a mandatory character, the end of the value or pattern), else unknown. */
type Follow = () => Next;

/** What either of two places may start with: characters of both, else unknown. */
const either = (a: Next, b: Next): Next =>
  a.kind === 'set' && b.kind === 'set' ? { kind: 'set', members: [...a.members, ...b.members] } : { kind: 'unknown' };

const nextOf = (sequence: Node[], index: number, follow: Follow): Next => {
  if (index >= sequence.length) return follow();
  const node = sequence[index];
  if (node.kind === 'assert') return node.which === '$' ? { kind: 'set', members: [] } : { kind: 'unknown' };
  let after: Next | undefined; // what follows the node, computed once (alternatives share it)
  const rest: Follow = () => {
    after ??= nextOf(sequence, index + 1, follow);
    return after;
  };
  if (node.kind === 'group') {
    // A plain group (such as X? written out): the first characters of its alternatives, or what follows an empty one.
    if (node.type !== 'plain') return { kind: 'unknown' };
    return node.alternatives.map((alternative) => nextOf(alternative, 0, rest)).reduce(either);
  }
  const atom = node.kind === 'quantified' ? node.body : node;
  const words = node.kind === 'quantified' ? deterministicWords(atom) : undefined;
  if (words !== undefined) {
    // A repetition of words begins with the first character of one of them.
    const firsts = words.map((word) => (word[0].kind === 'atom' ? word[0].members : undefined));
    if (firsts.some((members) => members === undefined)) return { kind: 'unknown' };
    const first: Next = { kind: 'set', members: firsts.flat() as number[] };
    return (node as { min: number }).min === 0 ? either(first, rest()) : first;
  }
  if (atom.kind !== 'atom' || atom.members === undefined) return { kind: 'unknown' };
  const first: Next = { kind: 'set', members: atom.members };
  return node.kind === 'quantified' && node.min === 0 ? either(first, rest()) : first;
};

/** True when no character of `members` matches the atom (so that a run of the atom ends where the next character begins). */
const disjoint = (atom: { source: string }, members: number[]): boolean => {
  const pattern = new RegExp(`^(?:${atom.source})$`, 'u');
  return members.every((c) => !pattern.test(String.fromCodePoint(c)));
};

interface Walk {
  cost: number; // steps, at most
  entries: number; // ways matching may reach the end of the walked part, each of which the rest is tried from
  spread: number; // of those ways, the most that may be at one same position of the value
  /**
   * `entries` as a multiple of the ways in only (without the bound of a word's occurrences, which
   * does not grow with them): what exclusive alternatives take the most of (walkGroup).
   */
  free: number;
}

/**
 * The most positions a word of single characters can occur at in a value of N characters: two
 * occurrences are at least its period apart (the least p with word[k] = word[k + p]): `fix` 170
 * times, `fixup` 102, `aaaa` 509.
 */
const occurrences = (word: readonly number[]): number => {
  if (word.length > N) return 0;
  // The longest proper border of each prefix (Knuth-Morris-Pratt); the period is the length minus the word's.
  const border = [0];
  for (let k = 1, b = 0; k < word.length; k++) {
    while (b > 0 && word[k] !== word[b]) b = border[b - 1];
    if (word[k] === word[b]) b += 1;
    border.push(b);
  }
  const period = word.length - border[word.length - 1];
  return Math.floor((N - word.length) / period) + 1;
};

const cap = (x: number): number => Math.min(x, Number.MAX_SAFE_INTEGER);

/** The code point of an atom that matches one character only, outside (?i:…) and lookarounds. */
const literal = (node: Node): number | undefined => (node.kind === 'atom' && node.members?.length === 1 ? node.members[0] : undefined);

/**
 * An upper bound on the steps a backtracking matcher takes on a value of N characters: each element
 * costs one step per way matching reaches it (`entries`), a quantifier as many as the lengths it may
 * take, and a quantifier of variable length multiplies the ways on by its lengths, unless only one of
 * them can go on: its atom cannot match the mandatory character that follows it (`[^/]*\/`,
 * `[0-9]+\.`), or `$` follows it, or it ends the pattern (its first length is a match). Alternatives
 * add up their ways, unless no two can match from one position (exclusive: then the most of one);
 * a lookaround, which never backtracks once done, gives back the ways it was given.
 * An unanchored pattern is tried from each of N+1 positions.
 *
 * A run of literal characters (`candidate`) costs one step per way for its first character, and
 * for the rest at most `spread` ways per position times the characters it may compare there: a
 * character of the value is compared with one of the run's characters only where it equals it, so
 * at most `repeats` times (the most times one character occurs in the run) over all positions.
 */
const walkSequence = (sequence: Node[], ways: Omit<Walk, 'cost'>, atStart: boolean, follow: Follow, inLook: boolean, backwards: boolean): Walk => {
  let cost = 0;
  let { entries, spread, free } = ways;
  const order = backwards ? [...sequence.keys()].reverse() : [...sequence.keys()];
  let run: Map<number, number> | undefined; // the literal characters of the run under way, counted
  let runLength = 0;
  const word: number[] = []; // the run's characters, in order
  const endRun = () => {
    if (run === undefined) return;
    const repeats = Math.max(...run.values());
    cost = cap(cost + Math.min(entries * runLength, entries + spread * N * repeats));
    // A way goes on past the run only from a position where the word occurs: at most `spread` ways at each of its occurrences.
    entries = Math.min(entries, cap(spread * occurrences(word)));
    run = undefined;
    runLength = 0;
    word.length = 0;
  };
  for (const index of order) {
    const node = sequence[index];
    const rest: Follow = () => nextOf(sequence, index + 1, follow);
    const char = inLook || backwards ? undefined : literal(node);
    if (char !== undefined) {
      run ??= new Map();
      run.set(char, (run.get(char) ?? 0) + 1);
      runLength += 1;
      word.push(char);
      atStart = false;
      continue;
    }
    endRun();
    if (node.kind === 'assert') {
      cost = cap(cost + entries);
      if (node.which === '^' && atStart) {
        entries = 1;
        spread = 1;
        free = 1;
      }
      continue;
    }
    if (node.kind === 'atom') {
      cost = cap(cost + entries);
      atStart = false;
      continue;
    }
    if (node.kind === 'group') {
      const inner = walkGroup(node, { entries, spread, free }, atStart, rest, inLook, backwards);
      cost = cap(cost + inner.cost);
      if (node.type === 'plain' || node.type === 'modifier') ({ entries, spread, free } = inner);
      atStart = false;
      continue;
    }
    // A quantified atom or group: a group under a quantifier holds neither quantifier nor alternative.
    const body = node.body;
    // A repetition tries each alternative of a group once at most: those after the one that
    // matched only when it is taken back; and one step more for the choice it keeps (measured: a
    // repetition of alternatives costs more per step than a run of one character does).
    const choice = body.kind === 'group' && body.alternatives.length > 1 ? 1 : 0;
    const bodyCost =
      body.kind === 'group'
        ? choice + Math.max(1, walkGroup(body, { entries: 1, spread: 1, free: 1 }, false, () => ({ kind: 'unknown' }), true, backwards).cost)
        : 1;
    // Words of which at most one matches from a position (deterministicWords) repeat as one character does.
    const words = inLook || backwards ? undefined : deterministicWords(body);
    // No more repetitions of words than of their shortest fit in a value.
    const most = words === undefined ? N : Math.floor(N / Math.min(...words.map((word) => word.length)));
    const repetitions = Math.min(node.max, most + 1);
    atStart = false;
    const next: Next = inLook || backwards ? { kind: 'unknown' } : rest();
    if (next.kind === 'end' && node.min !== node.max) {
      // Its first length that reaches the end is a match: only a value too short fails, each time.
      cost = cap(cost + entries * Math.min(node.min, N + 1) * bodyCost + repetitions * bodyCost);
      continue;
    }
    cost = cap(cost + entries * repetitions * bodyCost);
    if (node.min === node.max) continue;
    const lengths = Math.min(node.max - node.min, most) + 1;
    const endsBefore = (members: number[]): boolean =>
      body.kind === 'atom' ? disjoint(body, members) : words?.every((word) => disjoint(word[0] as { source: string }, members)) === true;
    if (next.kind === 'set' && endsBefore(next.members)) {
      // One way out per way in, but ways in at several positions may end at the same one.
      spread = Math.min(entries, cap(spread * lengths));
      continue;
    }
    const before = entries;
    entries = cap(entries * lengths);
    free = cap(free * lengths);
    // Each length of one character (or one word of deterministicWords) at a time ends at its own
    // position: one way in gives at most one way out per position. Another group's repetitions
    // might match nothing, or end at one position in several ways: no such bound.
    spread = body.kind === 'atom' || words !== undefined ? Math.min(before, entries) : entries;
  }
  endRun();
  return { cost, entries, spread, free };
};

/** The characters each of a sequence's first elements must match, while they are single characters (undefined: not listed). */
const leadingCharacters = (sequence: Node[]): (Set<number> | undefined)[] => {
  const leading: (Set<number> | undefined)[] = [];
  for (const node of sequence) {
    if (node.kind !== 'atom') break;
    leading.push(node.members === undefined ? undefined : new Set(node.members));
  }
  return leading;
};

/**
 * Whether no two alternatives can match from the same position: for each pair, after the same
 * number of single characters (each atom matches exactly one code point with the `u` flag), one
 * must match a character the other cannot (`feat|fix|chore`: `e` or `i` second, `f` or `c` first).
 * This is what `entries` relies on: such a group's ways out are those of one alternative; and
 * as each alternative begins with a character, its ways out are proportional to its ways in
 * (no `^` at its start resets them).
 */
const exclusive = (alternatives: Node[][]): boolean => {
  if (alternatives.length < 2) return false;
  const leading = alternatives.map(leadingCharacters);
  const apart = (a: (Set<number> | undefined)[], b: (Set<number> | undefined)[]): boolean => {
    for (let k = 0; k < Math.min(a.length, b.length); k++) {
      const x = a[k];
      const y = b[k];
      if (x !== undefined && y !== undefined && [...x].every((c) => !y.has(c))) return true;
    }
    return false;
  };
  return leading.every((a, i) => leading.every((b, j) => j <= i || apart(a, b)));
};

const walkGroup = (
  group: Extract<Node, { kind: 'group' }>,
  ways: Omit<Walk, 'cost'>,
  atStart: boolean,
  follow: Follow,
  inLook: boolean,
  backwards: boolean,
): Walk => {
  const look = group.type === 'look' || group.type === 'lookbehind';
  const inner: Follow = group.type === 'plain' && !inLook ? follow : () => ({ kind: 'unknown' });
  // Alternatives that cannot both match from one position: each way in goes on through one of them
  // at most, so the ways out are those of the one that gives the most per way in (the others
  // still cost their steps). Without (?i:…) or a lookbehind, where characters compare otherwise.
  const oneOf = group.type === 'plain' && !inLook && !backwards && exclusive(group.alternatives);
  let cost = 0;
  let entries = 0;
  let spread = 0;
  let free = 0;
  for (const alternative of group.alternatives) {
    // `^` pins matching to the value's first position only outside a lookaround and (?m:…).
    const walk = walkSequence(
      alternative,
      ways,
      atStart && group.type === 'plain',
      inner,
      inLook || look || group.type === 'modifier',
      backwards || group.type === 'lookbehind',
    );
    cost = cap(cost + walk.cost);
    // Exclusive: the most of one per way in (`free`, proportional to the ways in), but never more
    // than they all give (`entries`, which may be bounded by the occurrences of their words).
    entries = cap(entries + walk.entries);
    free = oneOf ? Math.max(free, walk.free) : cap(free + walk.free);
    spread = cap(spread + walk.spread);
  }
  entries = oneOf ? Math.min(entries, free) : entries;
  return { cost, entries, spread: Math.min(spread, entries), free };
};

/** The most steps matching one pattern may take on a MAX_REGEX_INPUT value: about 13 ms at the slowest steps measured (\p{L}, Node 24). */
export const MAX_REGEX_STEPS = 2_000_000;

/** An upper bound on the steps matching `source` (valid, of the shape checkShape accepts) takes on a value of MAX_REGEX_INPUT characters. */
export const regexSteps = (source: string): number => {
  const top = { kind: 'group' as const, type: 'plain' as const, alternatives: new Parser(source).parse() };
  return walkGroup(top, { entries: N + 1, spread: 1, free: N + 1 }, true, () => ({ kind: 'end' }), false, false).cost;
};
