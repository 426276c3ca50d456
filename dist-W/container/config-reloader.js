import { readConfigFiles } from './config-files.js';
/**
 * Reloads TRIGGERS_FILE and CRONS_FILE while the service runs (file change, SIGHUP, the CLI's
 * `reload`, a NOTIFY from another replica). Both files are read and checked as at start-up;
 * when both are valid, each set is replaced by its new snapshot at once, so a request is matched
 * against the old set or the new one, never a mix. When either is invalid nothing changes, every
 * problem is logged at error level and kept for the admin UI until a reload succeeds.
 * Reloads run one at a time.
 */
export class ConfigReloader {
    config;
    triggers;
    schedules;
    secrets;
    logger;
    onReloaded;
    #problems = [];
    #last = Promise.resolve();
    constructor(config, triggers, schedules, secrets, logger, 
    /** Called after the schedules were replaced (the scheduler re-plans). */
    onReloaded) {
        this.config = config;
        this.triggers = triggers;
        this.schedules = schedules;
        this.secrets = secrets;
        this.logger = logger;
        this.onReloaded = onReloaded;
    }
    /** The problems of the last failed reload; empty after a successful one. */
    get problems() {
        return this.#problems;
    }
    reload(reason) {
        const run = this.#last.then(() => this.#reload(reason));
        this.#last = run.catch(() => undefined);
        return run;
    }
    async #reload(reason) {
        const files = await readConfigFiles(this.config, this.secrets);
        if (files.problems.length > 0) {
            this.#problems = files.problems;
            this.logger.error({ reason, problems: files.problems, triggers: this.triggers.current().length, schedules: this.schedules.current().length }, 'configuration reload refused; the running triggers and schedules are kept');
            return { ok: false, problems: files.problems, triggers: this.triggers.current().length, schedules: this.schedules.current().length };
        }
        this.triggers.replace(Object.freeze([...files.triggers]));
        this.schedules.replace(Object.freeze([...files.schedules]));
        this.#problems = [];
        this.onReloaded();
        this.logger.info({ reason, triggers: files.triggers.length, schedules: files.schedules.length }, 'configuration reloaded');
        return { ok: true, problems: [], triggers: files.triggers.length, schedules: files.schedules.length };
    }
}
//# sourceMappingURL=config-reloader.js.map