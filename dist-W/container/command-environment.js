import { homedir } from 'node:os';
/**
 * The whole environment of command actions, read once at start-up: PATH, HOME and LANG from the
 * service's environment or sane defaults, TZ when the service has one (otherwise the system's
 * zone applies, as for the service), and the variables COMMAND_ENV names that are set.
 * Nothing else — no service secret, no DATABASE_URL — reaches a command.
 */
export const commandEnvironment = (env, names) => {
    const result = {
        PATH: env.PATH || '/usr/local/bin:/usr/bin:/bin',
        HOME: env.HOME || homedir(),
        LANG: env.LANG || 'C.UTF-8',
    };
    if (env.TZ)
        result.TZ = env.TZ;
    for (const name of names) {
        const value = env[name];
        if (value !== undefined)
            result[name] = value.replace(/\0/g, '');
    }
    return result;
};
//# sourceMappingURL=command-environment.js.map