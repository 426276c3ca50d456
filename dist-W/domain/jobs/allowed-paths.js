/** A glob's problem, or undefined when it is usable. */
export const checkGlob = (glob) => {
    if (glob.startsWith('/'))
        return `"${glob}" starts with /: paths are relative to the repository root`;
    if (glob.split('/').some((segment) => segment === '..' || segment === '.'))
        return `"${glob}" has . or .. segments`;
    if (/\*\*[^/]|[^/]\*\*/.test(glob))
        return `"${glob}": ** must be a whole path segment (logs/** or **/x.md)`;
    return undefined;
};
const literal = (text) => text.replace(/[.+^${}()|[\]\\]/g, '\\$&');
/** Compiles checked globs (see checkGlob) into matchers. */
export const compileGlobs = (globs) => globs.map((glob) => {
    const segments = glob.split('/');
    let source = '';
    segments.forEach((segment, i) => {
        const last = i === segments.length - 1;
        if (segment === '**') {
            source += last ? '.*' : '(?:[^/]+/)*';
            return;
        }
        source += literal(segment).replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]') + (last ? '' : '/');
    });
    return new RegExp(`^${source}$`, 'u');
});
/** The paths no glob allows, in the given order. */
export const pathsOutside = (paths, globs) => paths.filter((path) => !globs.some((glob) => glob.test(path)));
const NOTE = 'Auto-merge: ';
/** The job's summary with `note` as its auto-merge line, replacing an earlier one (attempts repeat). */
export const withAutoMergeNote = (summary, note) => {
    const kept = (summary ?? '').split('\n').filter((line) => line !== '' && !line.startsWith(NOTE));
    return [...kept, `${NOTE}${note}`].join('\n');
};
//# sourceMappingURL=allowed-paths.js.map