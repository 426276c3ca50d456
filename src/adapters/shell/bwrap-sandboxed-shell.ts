import { execFile } from 'node:child_process';
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path';
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
  /** XDG_RUNTIME_DIR (`/run/user/<uid>`: the systemd --user and D-Bus session buses, through which `systemd-run --user` starts a process outside). Hidden; unset: nothing to hide. */
  readonly runtimeDir: string | undefined;
  /** TRIGGERS_DIR (where command actions run, their scripts). Hidden. */
  readonly triggersDir: string;
  /** TRIGGERS_FILE, CRONS_FILE (they may hold webhook secrets) and the `.env` file: each reads as empty. */
  readonly hiddenFiles: readonly string[];
  /**
   * The directories of the gateway's PostgreSQL Unix socket (postgresSocketDirs: /run/postgresql,
   * /var/run/postgresql, DATABASE_URL's and PGHOST's when a directory). Hidden whatever `network`:
   * through the socket, with `peer` authentication (Debian's default for local connections), a
   * command running as the service's user is let into the gateway's database without a password.
   */
  readonly databaseSocketDirs: readonly string[];
  /** JOBS_REPO: writable (a worktree's .git points into it, and agents run git), even when it is inside a hidden directory. */
  readonly repoDir: string;
  /**
   * JOB_SANDBOX_NETWORK. `none`: a network namespace of the command's own, with a loopback of its
   * own only (no host, no localhost services: the database, the gateway's API, cloud metadata),
   * and /run and /var/run hidden (the Unix sockets of local services: PostgreSQL's
   * /run/postgresql, which a network namespace leaves reachable, Docker's, the system bus).
   * `host`: the host's network, localhost included, and /run (but for the database's socket
   * directories, `databaseSocketDirs`). Unset: `host`.
   */
  readonly network?: 'none' | 'host';
}

/** The variables that carry the command and every path to the fixed script below (a value is never spliced into it). */
const HIDE_SLOTS = 10;
const FILE_SLOTS = 3;
const hideVariables = Array.from({ length: HIDE_SLOTS }, (_, i) => `AGW_SB_HIDE_${i + 1}`);
const fileVariables = Array.from({ length: FILE_SLOTS }, (_, i) => `AGW_SB_FILE_${i + 1}`);
const VARIABLES = ['AGW_SB_BWRAP', 'AGW_SB_NO_NET', ...hideVariables, ...fileVariables, 'AGW_SB_REPO', 'AGW_SB_CWD', 'AGW_SB_SCRIPT'] as const;
/** Where an unused file slot binds /dev/null: over the sandbox's own /dev/null (changes nothing; writable, as it was). */
const NO_FILE = '/dev/null';

/**
 * The script the inner executor runs: the same for every command. Each value is a double-quoted
 * expansion (one argument, whatever it holds). Hidden directories become empty tmpfs mounts,
 * parents first (bwrap makes the mount points of later mounts inside them); the jobs repository
 * is bound read-only after them and the worktree writable, and hidden files get /dev/null bound over them
 * last (they read as empty; what is written to them is gone, the file itself untouched). A slot
 * with nothing to hide repeats a harmless path (/tmp, /dev/null). `exec`: bwrap replaces the
 * shell, so it is the process group's leader that a timeout or an abort kills, and --die-with-parent with the PID
 * namespace takes every process of the command with it (one started with `setsid` included);
 * `--info-fd 3` reports the namespace's first process, which a kill takes first (sandboxReport):
 * --die-with-parent alone let a kill landing while bwrap made the namespace leave it running.
 * AGW_SB_NO_NET non-empty adds the fixed word `--unshare-net` (its value is never used): the
 * command gets a network namespace of its own (JOB_SANDBOX_NETWORK=none); empty, it keeps the
 * host's network (an external agent calls its model).
 *
 * The jobs repository is read-only: the agent reads its history (git log, diff, status) but
 * writes nothing in it — the runner commits the worktree itself, outside the sandbox. Writable,
 * it let the agent steer the runner's own git there (a link as `.git/worktrees`, which the
 * runner's `worktree prune` empties as the service's user; `objects/info/alternates` and a ref
 * linked to another repository, checked out into the next job's worktree; a reflog linked to a
 * file of the service's, which the runner's commit appends to).
 */
export const BWRAP_SCRIPT = [
  'exec "$AGW_SB_BWRAP" --info-fd 3 --die-with-parent --unshare-pid --unshare-ipc ${AGW_SB_NO_NET:+--unshare-net} --new-session',
  '--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp',
  ...hideVariables.map((name) => `--tmpfs "$${name}"`),
  '--ro-bind "$AGW_SB_REPO" "$AGW_SB_REPO" --bind "$AGW_SB_CWD" "$AGW_SB_CWD"',
  ...fileVariables.map((name) => `--dev-bind /dev/null "$${name}"`),
  '--chdir "$AGW_SB_CWD"',
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

/** A regular file as the kernel sees it (links resolved); undefined when there is none there. */
const existingFile = (path: string): string | undefined => {
  if (path === '' || !isAbsolute(path)) return undefined;
  try {
    const real = realpathSync(path);
    return statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
};

const within = (dir: string, path: string): boolean => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * Runs the agents' commands (JOB_AGENT_COMMAND, the built-in agent's run_command) inside
 * bubblewrap, through the executor it decorates: the whole filesystem read-only, the service's
 * DATA_DIR, HOME, working directory, XDG_RUNTIME_DIR, TRIGGERS_DIR and the database's Unix
 * socket directories empty, TRIGGERS_FILE, CRONS_FILE and `.env` empty, /tmp a fresh tmpfs, only the job's worktree and the
 * jobs repository writable, its own PID namespace (no other process's /proc, nothing outlives
 * the command), and with `network: 'none'` its own network namespace. The inner executor's process-group kill, timeout, output limits and start mark
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
    // Without a network, local services are cut off at their Unix sockets too (/var/run: a link to /run, or not).
    const offline = this.paths.network === 'none' ? ['/run', '/var/run'] : [];
    const candidates = [
      this.paths.serviceHome,
      this.paths.dataDir,
      this.paths.serviceCwd,
      this.paths.runtimeDir,
      this.paths.triggersDir,
      ...offline,
      // The database's socket directories, in every mode: a network namespace does not cut a Unix socket off.
      ...this.paths.databaseSocketDirs,
    ];
    // Each as the kernel sees it (/var/run/postgresql is /run/postgresql); one inside another hidden one is hidden with it.
    const hidden = [...new Set(candidates.map(existingDir))]
      .filter((dir): dir is string => dir !== undefined)
      .sort((a, b) => a.length - b.length)
      .filter((dir, i, dirs) => !dirs.slice(0, i).some((outer) => within(outer, dir)));
    // bwrap's mount points are made where the command would see them: a symbolic link in the
    // worktree's path (DATA_DIR a link) would make it fail every command ("Can't mkdir parents").
    const cwd = existingDir(resolve(options.cwd)) ?? resolve(options.cwd);
    const repo = existingDir(this.paths.repoDir) ?? cwd;
    // A file in a hidden directory is gone already; one in the writable repository or worktree is
    // hidden all the same (its bind comes after theirs).
    const files = [...new Set(this.paths.hiddenFiles.map(existingFile))].filter(
      (file): file is string => file !== undefined && (!hidden.some((dir) => within(dir, file)) || within(repo, file) || within(cwd, file)),
    );
    if (hidden.length > HIDE_SLOTS || files.length > FILE_SLOTS) throw new Error('bwrap sandbox: more paths to hide than slots');
    const env: Record<string, string> = {
      ...options.env,
      AGW_SB_BWRAP: this.paths.bwrap,
      AGW_SB_NO_NET: this.paths.network === 'none' ? '1' : '',
      ...Object.fromEntries(hideVariables.map((name, i) => [name, hidden[i] ?? '/tmp'])),
      ...Object.fromEntries(fileVariables.map((name, i) => [name, files[i] ?? NO_FILE])),
      // The repository as the worktree's .git names it; the worktree itself when there is none.
      AGW_SB_REPO: repo,
      AGW_SB_CWD: cwd,
      AGW_SB_SCRIPT: command,
    };
    return this.inner.run(BWRAP_SCRIPT, { ...options, cwd, env, sandboxReport: true });
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

/** The same with the network namespace of JOB_SANDBOX_NETWORK=none (bwrap also brings up its loopback). */
export const BWRAP_NET_CHECK_ARGS = ['--unshare-net', ...BWRAP_CHECK_ARGS] as const;

/** Runs bwrap with `args`: undefined when it succeeded, else the first lines of what it said. */
const tryBwrap = (bwrap: string, args: readonly string[], timeoutMs: number): Promise<string | undefined> =>
  new Promise((done) => {
    execFile(bwrap, [...args], { timeout: timeoutMs, env: { PATH: '/usr/bin:/bin' } }, (error, _stdout, stderr) => {
      if (error === null) return done(undefined);
      done(stderr.trim().split('\n').slice(0, 3).join(' ') || (error.killed ? `no answer within ${timeoutMs} ms` : error.message));
    });
  });

/**
 * Whether bwrap can build a sandbox here (JOB_SANDBOX=bwrap, at start-up): undefined when it
 * can, else what failed (not installed, or refused: a container without user namespaces or
 * with a seccomp profile that forbids them, see docs/deployment.md).
 */
export const checkBwrap = async (bwrap: string | undefined, timeoutMs = 10_000): Promise<string | undefined> => {
  if (bwrap === undefined) return 'bwrap (Debian package bubblewrap) is not installed: no bwrap on PATH';
  const why = await tryBwrap(bwrap, BWRAP_CHECK_ARGS, timeoutMs);
  return why === undefined ? undefined : `${bwrap} cannot build a sandbox here (${why}); see docs/deployment.md, "Sandboxing local jobs"`;
};

/**
 * Whether bwrap, which builds a sandbox here (checkBwrap), can also give it a network namespace
 * of its own (JOB_SANDBOX_NETWORK=none, at start-up): undefined when it can, else what failed.
 */
export const checkBwrapNetwork = async (bwrap: string, timeoutMs = 10_000): Promise<string | undefined> => {
  const why = await tryBwrap(bwrap, BWRAP_NET_CHECK_ARGS, timeoutMs);
  return why === undefined
    ? undefined
    : `${bwrap} builds a sandbox but cannot give it a network namespace of its own (${why}); allow it (see docs/deployment.md, ` +
        `"Sandboxing local jobs"), or set JOB_SANDBOX_NETWORK=host to leave the agents' commands the host's network, localhost included`;
};
