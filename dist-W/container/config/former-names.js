import { z } from 'zod';
import { environment } from './fields.js';
/**
 * A capability's schema over variables that were renamed, where the former names keep working:
 * each current variable takes its former one's value when only that is set. Both set to
 * different values is a problem naming both. The schema is built with `nameOf`, which gives the
 * name the operator uses for a variable — the former names when only former ones are set, so
 * that messages name what is in their environment — and its problems name the variable so too.
 */
export const withFormerNames = (formerNames, schema) => environment().transform((env, ctx) => {
    const entries = Object.entries(formerNames);
    const isSet = (name) => (env[name] ?? '').trim() !== '';
    const former = entries.some(([, old]) => isSet(old)) && !entries.some(([current]) => isSet(current));
    const nameOf = (current) => (former && formerNames[current] !== undefined ? formerNames[current] : current);
    const merged = { ...env };
    for (const [current, old] of entries) {
        if (isSet(current) && isSet(old) && env[current].trim() !== env[old].trim()) {
            ctx.addIssue({ code: 'custom', path: [current], message: `set to a different value than ${old} (its former name): set one of them` });
        }
        if (!isSet(current))
            merged[current] = env[old];
    }
    const result = schema(nameOf).safeParse(merged);
    if (result.success)
        return result.data;
    for (const issue of result.error.issues) {
        const [first, ...rest] = issue.path;
        ctx.addIssue({ code: 'custom', path: typeof first === 'string' ? [nameOf(first), ...rest] : issue.path, message: issue.message });
    }
    return z.NEVER;
});
//# sourceMappingURL=former-names.js.map