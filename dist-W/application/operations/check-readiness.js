/** How long a dependency may take to answer before it counts as unavailable. */
export const READINESS_TIMEOUT_MS = 2000;
/** Asks every dependency at once, each within a short time limit (`timeoutMs`, default 2 s). */
export class CheckReadiness {
    checks;
    logger;
    timeoutMs;
    constructor(checks, logger, timeoutMs = READINESS_TIMEOUT_MS) {
        this.checks = checks;
        this.logger = logger;
        this.timeoutMs = timeoutMs;
    }
    async execute() {
        const results = await Promise.all(this.checks.map(async (check) => {
            let timer;
            try {
                await Promise.race([
                    check.check(),
                    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs))),
                ]);
                return [check.name, 'ok'];
            }
            catch (error) {
                this.logger.warn({ err: error, check: check.name }, 'readiness check failed');
                return [check.name, 'unavailable'];
            }
            finally {
                clearTimeout(timer);
            }
        }));
        return { ready: results.every(([, state]) => state === 'ok'), checks: Object.fromEntries(results) };
    }
}
//# sourceMappingURL=check-readiness.js.map