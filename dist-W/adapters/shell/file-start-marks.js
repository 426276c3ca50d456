import { mkdirSync } from 'node:fs';
import { access, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
const exists = (path) => access(path).then(() => true, () => false);
/**
 * Start marks as empty files in a directory of the service's own (`DATA_DIR/run-marks`). A mark
 * is named by host and path: only a process on the same machine can look at it, and where the
 * directory is missing (another container, a new volume) the answer is "cannot tell".
 */
export class FileStartMarks {
    host;
    #dir;
    constructor(dir, host = hostname()) {
        this.host = host;
        this.#dir = resolve(dir);
        mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    }
    place(runId, actionIndex) {
        const path = join(this.#dir, `${runId.replace(/[^0-9a-zA-Z-]/g, '_')}.${actionIndex}`);
        return { where: `${this.host}:${path}`, path };
    }
    async started(where) {
        const path = this.#path(where);
        if (path === null || !(await exists(dirname(path))))
            return null;
        return exists(path);
    }
    async clear(where) {
        const path = this.#path(where);
        if (path !== null)
            await rm(path, { force: true });
    }
    /** The mark's file when it was placed on this machine, else null. */
    #path(where) {
        const prefix = `${this.host}:`;
        return where.startsWith(prefix) ? where.slice(prefix.length) : null;
    }
}
//# sourceMappingURL=file-start-marks.js.map