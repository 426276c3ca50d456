import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { validateSchedules } from '../../domain/schedules/validate-schedules.js';
/** Reads and validates the schedule file (CRONS_FILE) against `catalog`. Problems name the file as the operator wrote it. */
export const loadScheduleFile = async (path, catalog, cwd = process.cwd()) => {
    const shown = relative(cwd, path).startsWith('..') ? path : relative(cwd, path);
    let text;
    try {
        text = await readFile(path, 'utf8');
    }
    catch (error) {
        if (error.code === 'ENOENT')
            return { schedules: [], problems: [], missing: true };
        return { schedules: [], problems: [`${shown}: cannot be read (${error.message})`], missing: false };
    }
    let parsed;
    try {
        parsed = JSON.parse(text);
    }
    catch (error) {
        return { schedules: [], problems: [`${shown}: not valid JSON (${error.message})`], missing: false };
    }
    return { ...validateSchedules(parsed, shown, catalog), missing: false };
};
//# sourceMappingURL=json-schedule-file.js.map