import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
/** Thrown when another live process has the embedded database open. */
export class EmbeddedDatabaseBusy extends Error {
    pid;
    dataDir;
    constructor(pid, dataDir) {
        super(`The embedded database in ${dataDir} is in use by process ${pid}`);
        this.pid = pid;
        this.dataDir = dataDir;
        this.name = 'EmbeddedDatabaseBusy';
    }
}
const isAlive = (pid) => {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (error) {
        return error.code === 'EPERM';
    }
};
/**
 * PGlite is single-process: two processes opening one data directory would corrupt it.
 * This pid file makes the second one fail clearly instead; a file left by a dead process is taken over.
 */
export class EmbeddedLock {
    dataDir;
    #file;
    constructor(dataDir) {
        this.dataDir = dataDir;
        this.#file = join(dataDir, 'embedded.pid');
    }
    /** The pid holding the lock, or null when nobody alive holds it. */
    async holder() {
        try {
            const pid = Number((await readFile(this.#file, 'utf8')).trim());
            return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid) ? pid : null;
        }
        catch {
            return null;
        }
    }
    async acquire() {
        await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
        for (let attempt = 0; attempt < 2; attempt++) {
            try {
                const handle = await open(this.#file, 'wx', 0o600);
                await handle.writeFile(String(process.pid));
                await handle.close();
                return;
            }
            catch (error) {
                if (error.code !== 'EEXIST')
                    throw error;
                const pid = await this.holder();
                if (pid !== null)
                    throw new EmbeddedDatabaseBusy(pid, this.dataDir);
                await unlink(this.#file).catch(() => undefined);
            }
        }
        throw new Error(`Could not lock the embedded database in ${this.dataDir}`);
    }
    async release() {
        try {
            if ((await readFile(this.#file, 'utf8')).trim() === String(process.pid))
                await unlink(this.#file);
        }
        catch {
            // Already gone: nothing to release.
        }
    }
}
//# sourceMappingURL=embedded-lock.js.map