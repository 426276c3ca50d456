import { execFile } from 'node:child_process';
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { ShellExecutor, ShellOptions, ShellRun } from '../../ports/shell-executor.js';

/** What the sandbox hides and what it leaves writable (JOB_SANDBOX=bwrap). */
export interface BwrapSandboxPaths {
  /** The bwrap binary, an absolute path (findBwrap): the command's own PATH never decides which program builds its sandbox. */
  readonly bwrap: string;
  /** DATA_DIR: the admin socket, the embedded database's files, other jobs' worktrees. Hidden. */
  readonly dataDir: string;
  /** The service's HOME (its credentials: ~/.git-credentials, ~/.ssh). Hidden; unset: nothing to hide. */
  readonly serviceHome: string | undefined;
  /** The service's working directory, where its `.env` is. Hidden. */
  readonly serviceCwd: string;
  /** JOBS_REPO: writable (a worktree's .git points into it, and agents run git), even when it is inside a hidden directory. */
  readonly repoDir: string;
}

/** The variables that carry the command and every path to the fixed script below (a value is never spliced into it). */
const VARIABLES = ['AGW_SB_BWRAP', 'AGW_SB_HIDE_1', 'AGW_SB_HIDE_2', 'AGW_SB_HIDE_3', 'AGW_SB_REPO', 'AGW_SB_CWD', 'AGW_SB_SCRIPT'] as const;

/**
 * The script the inner executor runs: the same for every command. Each value is a double-quoted
 * expansion (one argument, whatever it holds). Hidden directories become empty tmpfs mounts,
 * parents first (bwrap makes the mount points of later mounts inside them); the repository and
 * the worktree are bound writable after them. `exec`: bwrap replaces the shell, so it is the
 * process group's leader that a timeout or an abort kills, and --die-with-parent with the PID
 * namespace takes every process of the command with it (one started with `setsid` included).
 * The network stays: the agent calls its model.
 */
export const BWRAP_SCRIPT = [
  'exec "$AGW_SB_BWRAP" --die-with-parent --unshare-pid --unshare-ipc --new-session',
  '--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp',
  '--tmpfs "$AGW_SB_HIDE_1" --tmpfs "$AGW_SB_HIDE_2" --tmpfs "$AGW_SB_HIDE_3"',
  '--bind "$AGW_SB_REPO" "$AGW_SB_REPO" --bind "$AGW_SB_CWD" "$AGW_SB_CWD" --chdir "$AGW_SB_CWD"',
  ...VARIABLES.map((name) => `--unsetenv ${name}`),
  '-- /bin/sh -c "$AGW_SB_SCRIPT"',
].join(' ');

/** A directory as the kernel sees it (symbolic links resolved); undefined when it does not exist or is `/` (which cannot be hidden). */
const existingDir = (path: string | undefined): string | undefined => {
  if (path === undefined || path === '' || !isAbsolute(path)) return undefined;
  try {
    const real = realpathSync(path);
    return real === '/' ? undefined : real;
  } catch {
    return undefined;
  }
};

/**
 * Runs the agents' commands (JOB_AGENT_COMMAND, the built-in agent's run_command) inside
 * bubblewrap, through the executor it decorates: the whole filesystem read-only, the service's
 * DATA_DIR, HOME and working directory empty, /tmp a fresh tmpfs, only the job's worktree and the
 * jobs repository writable, its own PID namespace (no other process's /proc, nothing outlives
 * the command). The inner executor's process-group kill, timeout, output limits and start mark
 * work unchanged: they apply to the bwrap process.
 */
export class BwrapSandboxedShell implements ShellExecutor {
  constructor(
    private readonly inner: ShellExecutor,
    private readonly paths: BwrapSandboxPaths,
  ) {}

  run(command: string, options: ShellOptions): Promise<ShellRun> {
    // Parents before what is inside them; a directory not there (yet) has nothing to hide, and
    // its place is taken by /tmp (a tmpfs already: mounting another there changes nothing).
    const hidden = [...new Set([this.paths.serviceHome, this.paths.dataDir, this.paths.serviceCwd].map(existingDir))]
      .filter((dir): dir is string => dir !== undefined)
      .sort((a, b) => a.length - b.length);
    const [hide1 = '/tmp', hide2 = '/tmp', hide3 = '/tmp'] = hidden;
    const cwd = resolve(options.cwd);
    const env: Record<string, string> = {
      ...options.env,
      AGW_SB_BWRAP: this.paths.bwrap,
      AGW_SB_HIDE_1: hide1,
      AGW_SB_HIDE_2: hide2,
      AGW_SB_HIDE_3: hide3,
      // The repository as the worktree's .git names it; the worktree itself when there is none.
      AGW_SB_REPO: existingDir(this.paths.repoDir) ?? cwd,
      AGW_SB_CWD: cwd,
      AGW_SB_SCRIPT: command,
    };
    return this.inner.run(BWRAP_SCRIPT, { ...options, cwd, env });
  }
}

/** The bwrap binary on `path` (a PATH value), or undefined when there is none. */
export const findBwrap = (path: string | undefined): string | undefined => {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, 'bwrap');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
};

/** The arguments of the start-up check: the namespaces and mounts every sandboxed command needs. */
export const BWRAP_CHECK_ARGS = ['--ro-bind', '/', '/', '--unshare-pid', '--proc', '/proc', '--dev', '/dev', 'true'] as const;

/**
 * Whether bwrap can build a sandbox here (JOB_SANDBOX=bwrap, at start-up): undefined when it
 * can, else what failed (not installed, or refused: a container without user namespaces or
 * with a seccomp profile that forbids them, see docs/deployment.md).
 */
export const checkBwrap = async (bwrap: string | undefined, timeoutMs = 10_000): Promise<string | undefined> => {
  if (bwrap === undefined) return 'bwrap (Debian package bubblewrap) is not installed: no bwrap on PATH';
  return new Promise((done) => {
    execFile(bwrap, [...BWRAP_CHECK_ARGS], { timeout: timeoutMs, env: { PATH: '/usr/bin:/bin' } }, (error, _stdout, stderr) => {
      if (error === null) return done(undefined);
      const why = stderr.trim().split('\n').slice(0, 3).join(' ') || (error.killed ? `no answer within ${timeoutMs} ms` : error.message);
      done(`${bwrap} cannot build a sandbox here (${why}); see docs/deployment.md, "Sandboxing local jobs"`);
    });
  });
};
