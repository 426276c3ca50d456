import { constants, existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Job } from '../../domain/jobs/job.js';
import type { JobReport, JobRunner } from '../../ports/job-runner.js';
import type { ShellExecutor, ShellRun } from '../../ports/shell-executor.js';
import type { WorktreeAgent } from './worktree-agent.js';

const IDENTITY = ['-c', 'user.name=Agent Gateway', '-c', 'user.email=agent-gateway@localhost'];
/**
 * Given to every git command of the runner's, before its own arguments: the settings of the jobs
 * repository that would have git run a program, which the agent can set (its worktree's config is
 * the repository's: `git config core.hooksPath hooks` there lasts for every later job), overridden.
 * No hook runs (`core.hooksPath` an empty place; the commits also `--no-verify`): a failing
 * `pre-commit` of the agent's would otherwise run in the runner's commit, after the agent's time
 * limit, and its output become the job's error, shown in the chat notice. No file system monitor
 * (`core.fsmonitor` empty: git before 2.36 takes it for a hook's path and an empty one for none,
 * later git for a boolean and an empty one for false; `false` would be a program's name to the
 * former), no signing program (`commit.gpgSign`, which runs `gpg.program`). No filter driver
 * either, but those are named by the agent: see filterOverrides. Attributes files are read as
 * git reads them (the operator's `core.attributesFile` with its `text`/`eol` settings included):
 * overriding it would change line endings and keep no program out, since the filters are.
 * The runner fetches and pushes nothing (`core.sshCommand`, credential helpers), shows no diff
 * (`diff.external`, textconv) and uses no pager or editor.
 */
const NO_AGENT_PROGRAMS = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=', '-c', 'commit.gpgSign=false'];
/** The environment variable, empty, that `--config-env` gives a filter setting whose name `-c` cannot carry. */
const EMPTY_VARIABLE = 'AGW_GIT_EMPTY';
/** Ends the listing of the filter drivers (filterOverrides): an output cut short lacks it. */
const LISTING_END = 'agw-listing-end';
/** A git command of the runner's own (a worktree made or removed, a commit) that takes longer has hung. */
const GIT_TIMEOUT_MS = 10 * 60_000;
const LOG_LIMIT = 64 * 1024;
const SUMMARY_LIMIT = 500;

export interface LocalJobRunnerSettings {
  /** The repository jobs work on; created (empty, branch main) when it does not exist. */
  readonly repoDir: string;
  /** Where each job's worktree lives while it runs. */
  readonly worktreesDir: string;
}

/**
 * Runs jobs on this host: each in its own git worktree of the jobs repository on the
 * branch `job/<id>`, where the agent (an external command or the built-in loop) works.
 * The work, the prompt (`logs/<id>/job.md`) and the agent's log are committed to the branch.
 */
export class LocalJobRunner implements JobRunner {
  readonly kind = 'local';
  /** Repository-wide git operations (worktree add/remove) one at a time: git locks them. */
  #repositoryLock: Promise<unknown> = Promise.resolve();

  /**
   * `shell` runs the runner's own git commands: in the service the spawner process
   * (SpawnerShellExecutor), so that starting git never holds the service's event loop
   * (docs/architecture.md, "Commands run from a spawner process").
   */
  constructor(
    private readonly settings: LocalJobRunnerSettings,
    private readonly agent: WorktreeAgent,
    private readonly shell: ShellExecutor,
  ) {}

  async run(job: Job, report: JobReport, signal: AbortSignal): Promise<void> {
    const dir = join(this.settings.worktreesDir, job.id);
    await this.#exclusive(async () => {
      await this.#ensureRepository();
      await this.#removeLeftWorktrees();
      await rm(dir, { recursive: true, force: true });
      await this.#git(this.settings.repoDir, ['worktree', 'prune']);
      await this.#git(this.settings.repoDir, ['worktree', 'add', '-B', job.branch, dir, 'HEAD']);
    });
    try {
      const logDir = join(dir, 'logs', job.id);
      await mkdir(logDir, { recursive: true });
      await writeFile(
        join(logDir, 'job.md'),
        `# Job ${job.id}\n\nProvider: ${job.llmProvider ?? 'default'}\nModel: ${job.llmModel ?? 'default'}\n\n${job.job}\n`,
      );
      const result = await this.agent.run(job, dir, signal);
      const log = result.log.slice(-LOG_LIMIT);
      // The agent may have left a link in its place (to a file of the service's): replaced, not followed.
      await rm(join(logDir, 'agent.log'), { force: true });
      await writeFile(join(logDir, 'agent.log'), log, { flag: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW });
      const summary = await this.#summary(logDir, log);
      await this.#git(dir, [...IDENTITY, 'add', '-A']);
      await this.#git(dir, [...IDENTITY, 'commit', '--no-verify', '--allow-empty', '-m', `job ${job.id}: ${firstLine(job.job)}`, '-m', summary ?? '']);
      // Stopped (cancelled, or the service stopping): what the agent did until then is kept; the
      // status is not ours to say — a cancelled job stays cancelled, an interrupted one is failed by RunJob.
      if (result.aborted) return await report({ summary, log });
      await report({ status: result.ok ? 'succeeded' : 'failed', summary, log, error: result.error });
    } finally {
      await this.#exclusive(() =>
        this.#git(this.settings.repoDir, ['worktree', 'remove', '--force', dir]).catch(() => rm(dir, { recursive: true, force: true })),
      );
    }
  }

  #leftWorktreesRemoved = false;

  /**
   * Once per process, before its first worktree is made: worktrees an earlier process left (it was
   * stopped, or killed, before it removed the worktree of a job it ran) are removed. No job of
   * this process has a worktree yet (they are made one at a time, under the repository lock).
   */
  async #removeLeftWorktrees(): Promise<void> {
    if (this.#leftWorktreesRemoved) return;
    this.#leftWorktreesRemoved = true;
    const left = await readdir(this.settings.worktreesDir).catch(() => [] as string[]);
    for (const name of left) await rm(join(this.settings.worktreesDir, name), { recursive: true, force: true });
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#repositoryLock.then(work, work);
    this.#repositoryLock = result.catch(() => undefined);
    return result;
  }

  /**
   * The agent's own `logs/<id>/summary.md` when it wrote one, else the last line it printed.
   * The summary is stored on the job, put in the commit message and read by the chat model:
   * it is redacted like the log.
   */
  async #summary(logDir: string, log: string): Promise<string | null> {
    // Not through a link the agent made (summary.md → /proc/<service>/environ would put the
    // service's environment in the job's summary and commit): such a summary is not read.
    const file = await readFile(join(logDir, 'summary.md'), { encoding: 'utf8', flag: constants.O_RDONLY | constants.O_NOFOLLOW }).catch(() => undefined);
    const written = file === undefined ? undefined : this.agent.redact(file);
    const text =
      written?.trim() ||
      log
        .trim()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .at(-1);
    return text ? text.slice(0, SUMMARY_LIMIT) : null;
  }

  /**
   * The jobs repository, created (branch main, one commit) when there is none. It is made in a
   * directory beside it and renamed into place once committed: a stop or a crash while it is made
   * leaves no repository without a commit, which every later job would fail on (no HEAD).
   */
  async #ensureRepository(): Promise<void> {
    const repoDir = this.settings.repoDir;
    if (existsSync(join(repoDir, '.git')) || existsSync(join(repoDir, 'HEAD'))) return;
    const making = `${repoDir}.new`;
    await rm(making, { recursive: true, force: true });
    await mkdir(making, { recursive: true });
    await this.#git(making, ['init', '-q', '-b', 'main']);
    await writeFile(join(making, 'README.md'), '# Agent Gateway jobs\n\nEach job works on a branch job/<id>.\n');
    await this.#git(making, [...IDENTITY, 'add', 'README.md']);
    await this.#git(making, [...IDENTITY, 'commit', '--no-verify', '-q', '-m', 'Start the jobs repository']);
    // An empty directory already there (made by hand) is replaced; anything else is not ours to overwrite.
    await rename(making, repoDir).catch((error: NodeJS.ErrnoException) => {
      const why = error.code === 'ENOTEMPTY' || error.code === 'EEXIST' ? `it exists, is not empty and is not a git repository (${error.code})` : error.message;
      throw new Error(`Cannot create the jobs repository in ${repoDir}: ${why}`, { cause: error });
    });
  }

  /**
   * Runs `git -C <dir> <args>`; fails with git's output when git does. Every argument (a branch,
   * a path, the job's text in a commit message) reaches git as an environment variable the
   * command line only names, never as shell code. git gets a minimal environment (`PATH`, `HOME`,
   * `LANG`): none of the service's own variables reach it. No program the repository's config
   * names runs (NO_AGENT_PROGRAMS, filterOverrides). git's output in the error is redacted of the
   * job's secrets (the error is stored on the job and shown in its chat notice), as the agent's log is.
   */
  async #git(dir: string, args: readonly string[]): Promise<void> {
    const filters = await this.#filterOverrides(dir);
    const result = await this.#run(dir, [...NO_AGENT_PROGRAMS, ...filters, ...args]);
    if (result.exitCode !== 0) throw this.#failure(args.filter((arg) => !IDENTITY.includes(arg))[0] ?? '', result);
  }

  /**
   * Settings that disable every filter driver git would find for `dir`: for each `<name>` of a
   * `filter.<name>.*` setting in any of its config files (includes, the user's and the system's
   * too), `clean`, `smudge`, `process` and `required` empty, which git takes for no command and
   * false (a file of the driver's is taken as it is). A driver runs a command of the config's on
   * each file a `.gitattributes` gives it (`git add`, the commit's index refresh, a checkout), and
   * both are the agent's to write, under a name of its choosing: the names are listed (`git
   * config --get-regexp`) before each git command. `-c` cuts its argument at the first `=`, so a
   * name holding one goes by `--config-env` (git 2.31 on; older git refuses the option, and the
   * command fails). A name that is not UTF-8 (it could not be given back to git as it is) or a
   * listing cut short (over the shell's output limit) fails the command: no filter runs then
   * either. A Git LFS the operator installed (`filter.lfs`) is a filter driver too: LFS-tracked
   * files are checked out as their pointers and committed as they are. A process of the agent's still
   * running (one that left its process group) could add a driver between the listing and the
   * command: it runs as the service's user, with or without git.
   */
  async #filterOverrides(dir: string): Promise<string[]> {
    // git's names (NUL-terminated, on stdout), a line with git's exit code, then what git said on stderr.
    const listing = (git: string): string => `exec 3>&1; err=$(${git} 2>&1 >&3); code=$?; printf '\\n%s %s\\n%s' ${LISTING_END} "$code" "$err"`;
    const result = await this.#run(dir, ['config', '-z', '--name-only', '--get-regexp', '^filter[.]'], listing);
    // A name holds no line break: the first one starts the end line.
    const cut = result.output.indexOf('\n');
    const end = cut === -1 ? null : new RegExp(`^${LISTING_END} (\\d+)\n`).exec(result.output.slice(cut + 1));
    if (end === null) {
      if (result.exitCode === 0) throw new Error('git config listed more filter drivers than the runner reads: it cannot disable them');
      throw this.#failure('config', result);
    }
    const code = Number(end[1]);
    // 1: no such setting.
    if (code !== 0 && code !== 1) throw this.#failure('config', { ...result, exitCode: code, output: result.output.slice(cut + 1 + end[0].length) });
    const names = new Set(
      result.output
        .slice(0, cut)
        .split('\0')
        .slice(0, -1)
        // filter.<name>.<key>: the name is all between the first and the last dot (`filter.a.b.clean`: `a.b`).
        .filter((key) => key.lastIndexOf('.') > 'filter'.length)
        .map((key) => key.slice('filter.'.length, key.lastIndexOf('.'))),
    );
    const overrides: string[] = [];
    for (const name of names) {
      if (name.includes('\uFFFD')) throw new Error(`git config names a filter driver whose name is not UTF-8 (${JSON.stringify(name)}): it cannot be disabled`);
      for (const key of ['clean', 'smudge', 'process', 'required']) {
        const setting = `filter.${name}.${key}`;
        overrides.push(...(name.includes('=') ? [`--config-env=${setting}=${EMPTY_VARIABLE}`] : ['-c', `${setting}=`]));
      }
    }
    return overrides;
  }

  /** Runs `script(git)` (by default `exec git`), `git` the command line of `git -C <dir> <args>`, each value passed as a variable. */
  #run(dir: string, args: readonly string[], script = (git: string): string => `exec ${git}`): Promise<ShellRun> {
    const values = [dir, ...args];
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      LANG: process.env.LANG ?? 'C.UTF-8',
      [EMPTY_VARIABLE]: '',
    };
    for (const [index, value] of values.entries()) env[`AGW_GIT_${index}`] = value;
    const git = `git -C ${values.map((_, index) => `"$AGW_GIT_${index}"`).join(' ')}`;
    return this.shell.run(script(git), { cwd: dir, timeoutMs: GIT_TIMEOUT_MS, env });
  }

  #failure(command: string, result: ShellRun): Error {
    const outcome = result.timedOut ? `did not finish within ${GIT_TIMEOUT_MS / 60_000} minutes` : `exited with code ${result.exitCode}`;
    return new Error(`git ${command} ${outcome}: ${this.agent.redact(result.output).trim().slice(-500)}`);
  }
}

const firstLine = (text: string): string => {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 72 ? `${line.slice(0, 69)}...` : line;
};
