/**
 * Which known name a misspelled one most likely meant, for a problem that says what to write
 * instead (`comand: unknown field …; did you mean command?`): a setting in `.env`, a field of a
 * trigger or schedule file, an endpoint a trigger watches.
 */

/**
 * Optimal string alignment distance (a swap of two neighbours counts one edit), capped at `max + 1`.
 * Three rows, and it stops once two rows in a row are past `max` (every alignment crosses one of
 * them: a swap skips a row, never two): start-up compares each variable of its environment with
 * every setting's name, and a full table for each pair cost a start some 30 ms.
 */
export const editDistance = (a: string, b: string, max: number): number => {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const width = b.length + 1;
  let older = new Int32Array(width);
  let previous = new Int32Array(width);
  let current = new Int32Array(width);
  for (let j = 0; j < width; j++) previous[j] = j;
  let previousMin = 0;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j < width; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, older[j - 2]! + 1);
      current[j] = best;
      if (best < rowMin) rowMin = best;
    }
    if (rowMin > max && previousMin > max) return max + 1;
    previousMin = rowMin;
    [older, previous, current] = [previous, current, older];
  }
  return Math.min(previous[b.length]!, max + 1);
};

/**
 * The known name `name` is one or two edits away from (one for a known name of up to 4
 * characters, where two edits reach unrelated words), case aside (`COMAND` → `command`); the
 * nearest when several are, the first listed among equals. Undefined when none is that near, when
 * `name` is itself known (exactly: case counts for that), or when the nearest is one of `given`.
 * `given` is the names the object already has: in `{"command": …, "comand": …}` the stray field
 * is no misspelling of a missing `command`, and naming it would send the reader to a field that is
 * there.
 */
export const nearestName = (name: string, known: Iterable<string>, given: Iterable<string> = []): string | undefined => {
  const lower = name.toLowerCase();
  let nearest: string | undefined;
  let nearestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    if (candidate === name) return undefined;
    const max = candidate.length <= 4 ? 1 : 2;
    // Most names are too long or too short to be near: no lower-casing, no table for them.
    if (Math.abs(candidate.length - lower.length) > max) continue;
    const found = editDistance(lower, candidate.toLowerCase(), max);
    if (found <= max && found < nearestDistance) {
      nearest = candidate;
      nearestDistance = found;
    }
  }
  if (nearest !== undefined && [...given].includes(nearest)) return undefined;
  return nearest;
};

/** `; did you mean X?` to end a problem with, or nothing when no known name is near (or the nearest is one of `given`). */
export const didYouMean = (name: string, known: Iterable<string>, given: Iterable<string> = []): string => {
  const meant = nearestName(name, known, given);
  return meant === undefined ? '' : `; did you mean ${meant}?`;
};
