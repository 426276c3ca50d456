/**
 * A start-up failure the operator fixes through one setting. Printed as the single line
 * `SETTING: what is wrong` (for example `PORT: 127.0.0.1:3000 is already in use`), and the
 * process exits with code 1.
 */
export class StartupError extends Error {
    setting;
    constructor(setting, detail, options) {
        super(`${setting}: ${detail}`, options);
        this.setting = setting;
        this.name = 'StartupError';
    }
}
//# sourceMappingURL=startup-error.js.map