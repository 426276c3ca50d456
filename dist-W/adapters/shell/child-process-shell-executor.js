import { DEFAULT_SHELL_SETTINGS, runShell } from './spawn-shell.js';
/**
 * `/bin/sh -c` started by this process (runShell). Starting a process copies the starting
 * process's page tables, which takes as long as that process is large: the service runs its
 * commands through SpawnerShellExecutor instead; this one serves small processes and tests.
 */
export class ChildProcessShellExecutor {
    settings;
    /** `shell`: `/bin/sh` in the service; tests also run commands with bash, which is /bin/sh on many systems. */
    constructor(settings = DEFAULT_SHELL_SETTINGS) {
        this.settings = settings;
    }
    run(command, options) {
        return runShell(command, options, this.settings);
    }
}
//# sourceMappingURL=child-process-shell-executor.js.map