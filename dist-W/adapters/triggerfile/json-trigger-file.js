import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { validateTriggers } from '../../domain/triggers/validate-triggers.js';
/** Reads and validates the trigger file against `catalog`. Problems name the file as the operator wrote it. */
export const loadTriggerFile = async (path, catalog, cwd = process.cwd()) => {
    const shown = relative(cwd, path).startsWith('..') ? path : relative(cwd, path);
    let text;
    try {
        text = await readFile(path, 'utf8');
    }
    catch (error) {
        if (error.code === 'ENOENT')
            return { triggers: [], problems: [], missing: true };
        return { triggers: [], problems: [`${shown}: cannot be read (${error.message})`], missing: false };
    }
    let parsed;
    try {
        parsed = JSON.parse(text);
    }
    catch (error) {
        return { triggers: [], problems: [`${shown}: not valid JSON (${error.message})`], missing: false };
    }
    return { ...validateTriggers(parsed, shown, catalog), missing: false };
};
//# sourceMappingURL=json-trigger-file.js.map