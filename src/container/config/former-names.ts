import { z } from 'zod';
import { environment } from './fields.js';

/** Renamed variables: each current name with the name it had before. */
export type FormerNames = Readonly<Record<string, string>>;

/**
 * A capability's schema over variables that were renamed, where the former names keep working:
 * each current variable takes its former one's value when only that is set. Both set to
 * different values is a problem naming both. The schema is built with `nameOf`, which gives the
 * name the operator uses for a variable — the one set, and for one set under neither name the
 * former name when only former ones are set, so that messages name what is in their
 * environment — and its problems name the variable so too.
 */
export const withFormerNames = <T>(formerNames: FormerNames, schema: (nameOf: (current: string) => string) => z.ZodType<T>) =>
  environment().transform((env, ctx): T => {
    const entries = Object.entries(formerNames);
    const isSet = (name: string): boolean => (env[name] ?? '').trim() !== '';
    const former = entries.some(([, old]) => isSet(old)) && !entries.some(([current]) => isSet(current));
    // Per variable: the name set, the former one when only it is; for one set under neither
    // name, the former name when the operator uses only former names.
    const nameOf = (current: string): string => {
      const old = formerNames[current];
      if (old === undefined || isSet(current)) return current;
      return isSet(old) || former ? old : current;
    };
    const merged: Record<string, string | undefined> = { ...env };
    for (const [current, old] of entries) {
      if (isSet(current) && isSet(old) && env[current]!.trim() !== env[old]!.trim()) {
        ctx.addIssue({ code: 'custom', path: [current], message: `set to a different value than ${old} (its former name): set one of them` });
      }
      if (!isSet(current)) merged[current] = env[old];
    }
    const result = schema(nameOf).safeParse(merged);
    if (result.success) return result.data;
    for (const issue of result.error.issues) {
      const [first, ...rest] = issue.path;
      ctx.addIssue({ code: 'custom', path: typeof first === 'string' ? [nameOf(first), ...rest] : issue.path, message: issue.message });
    }
    return z.NEVER;
  });
