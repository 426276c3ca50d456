/**
 * Which known name a misspelled one most likely meant, for a problem that says what to write
 * instead (`comand: unknown field …; did you mean command?`): a setting in `.env`, a field of a
 * trigger or schedule file, an endpoint a trigger watches.
 */

/** Optimal string alignment distance (a swap of two neighbours counts one edit), capped at `max + 1`. */
export const editDistance = (a: string, b: string, max: number): number => {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]![j] = j;
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
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
