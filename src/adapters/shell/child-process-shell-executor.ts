import type { ShellExecutor, ShellOptions, ShellRun } from '../../ports/shell-executor.js';
import { DEFAULT_SHELL_SETTINGS, runShell, type ShellSettings } from './spawn-shell.js';

/**
 * `/bin/sh -c` started by this process (runShell). Starting a process copies the starting
 * process's page tables, which takes as long as that process is large: the service runs its
 * commands through SpawnerShellExecutor instead; this one serves small processes and tests.
 */
export class ChildProcessShellExecutor implements ShellExecutor {
  /** `shell`: `/bin/sh` in the service; tests also run commands with bash, which is /bin/sh on many systems. */
  constructor(private readonly settings: ShellSettings = DEFAULT_SHELL_SETTINGS) {}

  run(command: string, options: ShellOptions): Promise<ShellRun> {
    return runShell(command, options, this.settings);
  }
}
