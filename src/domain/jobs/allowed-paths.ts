import { shownInput } from '../errors/shown-input.js';

/**
 * ALLOWED_PATHS of auto-merge: globs over repository paths. `**` matches any number of path
 * segments (also none; as the last segment, at least one), `*` anything within one segment,
 * `?` one character of a segment; everything else is literal. `logs/**` allows every file under
 * `logs/`.
 */
export interface PathGlob {
  /** The glob's segments; a last `**` is stored as `*` then `**` (at least one segment). */
  readonly segments: readonly (readonly string[])[];
}

export type PathGlobs = readonly PathGlob[];

/** Counts the matcher's steps (path segments and characters looked at), for bounding its work. */
export interface MatchSteps {
  count: number;
}

const ANY = '**';

/** A glob's problem, or undefined when it is usable. The problem repeats the glob cut (shownInput), as other refused values are. */
export const checkGlob = (glob: string): string | undefined => {
  const shown = `"${shownInput(glob)}"`;
  if (glob.startsWith('/')) return `${shown} starts with /: paths are relative to the repository root`;
  const segments = glob.split('/');
  if (segments.some((segment) => segment === '..' || segment === '.')) return `${shown} has . or .. segments`;
  if (/\*\*[^/]|[^/]\*\*/.test(glob)) return `${shown}: ** must be a whole path segment (logs/** or **/x.md)`;
  // One ** already spans any number of segments: more in a row add nothing but matching work.
  if (segments.some((segment, i) => segment === ANY && segments[i + 1] === ANY)) return `${shown} has ** twice in a row: one ** spans any number of segments`;
  return undefined;
};

/** Compiles checked globs (see checkGlob) into matchers. */
export const compileGlobs = (globs: readonly string[]): PathGlobs =>
  globs.map((glob) => {
    const segments = glob.split('/');
    if (segments[segments.length - 1] === ANY) segments.splice(-1, 1, '*', ANY);
    // Code points, as `?` matches one character.
    return { segments: segments.map((segment) => (segment === ANY ? [ANY] : Array.from(segment))) };
  });

/**
 * A pattern of `length` units against a text of `textLength` units, where `isStar(p)` units match
 * any run of units (none included) and `matches(p, t)` says whether unit `p` takes unit `t`:
 * greedy, going back only to the last star (an earlier one can never need to take more), so at
 * most pattern × text steps, and about text steps for the usual patterns. Each step is counted.
 */
const wildcardWalk = (
  length: number,
  textLength: number,
  isStar: (p: number) => boolean,
  matches: (p: number, t: number) => boolean,
  steps: MatchSteps,
): boolean => {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < textLength) {
    steps.count++;
    if (p < length && isStar(p)) {
      star = p++;
      resume = t;
    } else if (p < length && matches(p, t)) {
      p++;
      t++;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else return false;
  }
  while (p < length && isStar(p)) p++;
  return p === length;
};

/** One segment against a pattern of literal characters, `*` and `?` (one character). */
const segmentMatches = (pattern: readonly string[], text: readonly string[], steps: MatchSteps): boolean =>
  wildcardWalk(
    pattern.length,
    text.length,
    (p) => pattern[p] === '*',
    (p, t) => pattern[p] === '?' || pattern[p] === text[t],
    steps,
  );

/**
 * Whether `glob` allows `path`: the same walk over path segments, `**` standing for `*` and a
 * segment for a character, so the work grows with the path's length times the glob's segments
 * at most, never exponentially (a regular expression with several `**` could).
 */
export const globMatches = (glob: PathGlob, path: string, steps: MatchSteps = { count: 0 }): boolean => {
  const pattern = glob.segments;
  const text = path.split('/').map((segment) => Array.from(segment));
  return wildcardWalk(
    pattern.length,
    text.length,
    (p) => pattern[p][0] === ANY,
    (p, t) => segmentMatches(pattern[p], text[t], steps),
    steps,
  );
};

/** The paths no glob allows, in the given order. */
export const pathsOutside = (paths: readonly string[], globs: PathGlobs): string[] => paths.filter((path) => !globs.some((glob) => globMatches(glob, path)));

const NOTE = 'Auto-merge: ';

/** The job's summary with `note` as its auto-merge line, replacing an earlier one (attempts repeat). */
export const withAutoMergeNote = (summary: string | null, note: string): string => {
  const kept = (summary ?? '').split('\n').filter((line) => line !== '' && !line.startsWith(NOTE));
  return [...kept, `${NOTE}${note}`].join('\n');
};
