import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir, realpath, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Job } from '../../domain/jobs/job.js';
import type { JobReport, JobRunner } from '../../ports/job-runner.js';
import type { ShellExecutor, ShellRun } from '../../ports/shell-executor.js';
import { storableText } from '../../domain/text/storable-text.js';
import { readAtMost, writeRegular } from './bounded-file.js';
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
 * either but Git LFS's own, but those are named by the agent: see filterOverrides. Attributes
 * files are read as git reads them (the operator's `core.attributesFile` with its `text`/`eol` settings included):
 * overriding it would change line endings and keep no program out, since the filters are.
 * The runner fetches and pushes nothing, shows no diff (`diff.external`, textconv) and uses no
 * pager or editor; a Git LFS it keeps connects nowhere either, and were it to, it would run no
 * credential helper (an empty `credential.helper` empties their list), no `core.askPass`, and
 * `false` for ssh (GIT_SSH_COMMAND, over `core.sshCommand`, which git-lfs 3.3 runs when it starts).
 * Nor does git fetch for it: an agent can make the repository a partial clone of a "promisor"
 * remote whose `uploadpack` is a program of its own and point `main` at a tree naming a missing
 * blob, which the next job's checkout would fetch lazily, running that program. No transport is
 * allowed (`protocol.allow=never` and, since a `protocol.<name>.allow` of the repository's beats
 * it, each protocol's own; GIT_ALLOW_PROTOCOL, empty, in #run over all of them) and git 2.44 on
 * fetches nothing lazily (GIT_NO_LAZY_FETCH): such a step fails instead. No submodule is recursed
 * into, no automatic maintenance or gc (`gc.auto`, `maintenance.auto`) started after a commit.
 * Config-defined hooks (`hook.<name>.command`, git 2.54 on, not kept out by `core.hooksPath`) fail
 * the step: see filterOverrides.
 */
const NO_AGENT_PROGRAMS = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=',
  '-c',
  'commit.gpgSign=false',
  '-c',
  'credential.helper=',
  '-c',
  'core.askPass=',
  '-c',
  'protocol.allow=never',
  ...['file', 'ext', 'ssh', 'git', 'http', 'https'].flatMap((name) => ['-c', `protocol.${name}.allow=never`]),
  '-c',
  'submodule.recurse=false',
  '-c',
  'maintenance.auto=false',
  '-c',
  'gc.auto=0',
];
/** The environment variable, empty, that `--config-env` gives a filter setting whose name `-c` cannot carry. */
const EMPTY_VARIABLE = 'AGW_GIT_EMPTY';
/** The settings of a filter driver that run a program, or make its failure the command's. */
const DRIVER_KEYS = ['clean', 'smudge', 'process', 'required'] as const;
/** Git LFS's filter driver as `git lfs install` configures it: the one the runner keeps (filterOverrides). */
const GIT_LFS_DRIVER: Readonly<Record<(typeof DRIVER_KEYS)[number], string>> = {
  clean: 'git-lfs clean -- %f',
  smudge: 'git-lfs smudge -- %f',
  process: 'git-lfs filter-process',
  required: 'true',
};
/** Ends the listing of the filter drivers (filterOverrides): an output cut short lacks it. */
const LISTING_END = 'agw-listing-end';
/** A git command of the runner's own (a worktree made or removed, a commit) that takes longer has hung. */
const GIT_TIMEOUT_MS = 10 * 60_000;
const LOG_LIMIT = 64 * 1024;
const SUMMARY_LIMIT = 500;
/** How much of the agent's `summary.md` is read: the summary kept is its first SUMMARY_LIMIT characters, trimmed. */
const SUMMARY_READ_LIMIT = 64 * 1024;
/** The environment variable the commit message reaches git's standard input by (never its command line: see #commit). */
const MESSAGE_VARIABLE = 'AGW_GIT_MESSAGE';

/**
 * The agent's text (its output, summary or error) as the job stores it: without NULs (`find
 * -print0`, a binary file shown, a model's answer; a text column holds none, nor does a commit
 * message) and with each lone surrogate (the log's cut can split a pair) made U+FFFD
 * (storableText). Unstorable, the report would fail and the job end failed without its log.
 */
const storableOutput = (text: string): string => storableText(text.replaceAll('\0', ''));

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
   * The git directories of each running job's worktree (by its directory), recorded when the
   * worktree is made, before its agent runs: every later git command of the runner's in that
   * worktree is given them (#run), never reads them from the worktree again (sandbox review H1).
   */
  readonly #worktreeGit = new Map<string, { readonly gitDir: string; readonly commonDir: string }>();

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

  /**
   * An error it throws is redacted of the job's secrets as its log is (WorktreeAgent.redact): the
   * caller logs it, stores it as the job's error and shows it in the chat notice, and parts of it
   * are the agent's choosing (the names of git settings it made, the paths of files it made).
   */
  async run(job: Job, report: JobReport, signal: AbortSignal): Promise<void> {
    try {
      await this.#runJob(job, report, signal);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const redacted = this.agent.redact(message);
      // Not wrapped, nor given a cause (which a logger would print whole), when there is nothing to hide.
      throw redacted === message && error instanceof Error ? error : new Error(redacted);
    }
  }

  async #runJob(job: Job, report: JobReport, signal: AbortSignal): Promise<void> {
    const dir = join(this.settings.worktreesDir, job.id);
    await this.#exclusive(async () => {
      await this.#ensureRepository();
      await this.#removeLeftWorktrees();
      await rm(dir, { recursive: true, force: true });
      await this.#git(this.settings.repoDir, ['worktree', 'prune']);
      // Not checked out here: see below.
      await this.#git(this.settings.repoDir, ['worktree', 'add', '--no-checkout', '-B', job.branch, dir, 'HEAD']);
      await this.#recordWorktreeGit(dir);
    });
    try {
      // Checked out by a git command of the worktree's own, its filter drivers listed there: a
      // config include on a condition (`includeIf "onbranch:job/*"`, `"gitdir:…/worktrees/"`, which
      // an earlier job's agent can add to the repository's config) applies in the worktree, on the
      // job's branch, and not in the repository's directory (branch main) where `worktree add` runs.
      // Git LFS kept (filterOverrides) puts what its store holds in place of the pointers the
      // checkout left (GIT_LFS_SKIP_SMUDGE), downloading nothing; an alias `lfs` of the agent's
      // runs no more than an empty one would, should git-lfs be missing. Only where the tree has
      // LFS-tracked files: a Git LFS configured for the user but not installed (or not needed by
      // this repository) fails no job of a repository without them.
      if ((await this.#git(dir, ['reset', '--hard', '-q'])) && (await this.#hasLfsFiles(dir))) await this.#git(dir, ['-c', 'alias.lfs=', 'lfs', 'checkout']);
      let logDir = await this.#logDir(dir, job.id);
      await writeRegular(
        join(logDir, 'job.md'),
        `# Job ${job.id}\n\nProvider: ${job.llmProvider ?? 'default'}\nModel: ${job.llmModel ?? 'default'}\n\n${job.job}\n`,
        { label: `logs/${job.id}/job.md` },
      );
      const result = await this.agent.run(job, dir, signal);
      const log = storableOutput(result.log.slice(-LOG_LIMIT));
      logDir = await this.#logDir(dir, job.id);
      // The agent may have left a link in its place (to a file of the service's): replaced, not followed.
      await rm(join(logDir, 'agent.log'), { force: true });
      await writeRegular(join(logDir, 'agent.log'), log, { label: `logs/${job.id}/agent.log`, exclusive: true });
      const summary = await this.#summary(logDir, log);
      await this.#checkCommonDir(dir);
      await this.#git(dir, [...IDENTITY, 'add', '-A']);
      await this.#commit(dir, summary === null ? `job ${job.id}: ${firstLine(job.job)}` : `job ${job.id}: ${firstLine(job.job)}\n\n${summary}`);
      // Stopped (cancelled, or the service stopping): what the agent did until then is kept; the
      // status is not ours to say — a cancelled job stays cancelled, an interrupted one is failed by RunJob.
      if (result.aborted) return await report({ summary, log });
      await report({ status: result.ok ? 'succeeded' : 'failed', summary, log, error: result.error === null ? null : storableOutput(result.error) });
    } finally {
      this.#worktreeGit.delete(dir);
      await this.#exclusive(() =>
        this.#git(this.settings.repoDir, ['worktree', 'remove', '--force', dir]).catch(() => rm(dir, { recursive: true, force: true })),
      );
    }
  }

  /**
   * Records the git directory of the worktree `dir` just made (its agent has not run yet) and the
   * repository's common one. After the agent ran, the worktree's `.git` file is the agent's (a
   * `gitdir:` of its choosing), and so are the worktree's git settings (`extensions.worktreeConfig`
   * and a `core.worktree` in `config.worktree`, the repository being writable in the sandbox):
   * read then, they would have the runner's `git add -A` take another directory (the service's
   * HOME) for the work tree and commit it. GIT_DIR, GIT_WORK_TREE and GIT_COMMON_DIR (#run) beat both.
   */
  async #recordWorktreeGit(dir: string): Promise<void> {
    const absolute = async (where: string, args: readonly string[]): Promise<string> => {
      const result = await this.#run(where, [...NO_AGENT_PROGRAMS, ...args]);
      if (result.exitCode !== 0) throw this.#failure('rev-parse', result);
      return realpath(result.output.trim());
    };
    const gitDir = await absolute(dir, ['rev-parse', '--absolute-git-dir']);
    const commonDir = await absolute(this.settings.repoDir, ['rev-parse', '--absolute-git-dir']);
    this.#worktreeGit.set(dir, { gitDir, commonDir });
  }

  /**
   * Fails the step when the worktree's `commondir` (its git directory's file naming the
   * repository's) no longer names the jobs repository: the agent rewrote it. The runner's git
   * ignores it (GIT_COMMON_DIR, #run), but a job whose agent did that is not committed.
   */
  async #checkCommonDir(dir: string): Promise<void> {
    const recorded = this.#worktreeGit.get(dir);
    if (recorded === undefined) return;
    const file = join(recorded.gitDir, 'commondir');
    const named = (await readAtMost(file, 4096, "the worktree's commondir").catch(() => undefined))?.text.trim();
    const actual = named === undefined ? undefined : await realpath(resolve(recorded.gitDir, named)).catch(() => undefined);
    if (actual !== recorded.commonDir) {
      throw new Error(`the worktree's git file ${file} no longer names the jobs repository (the agent changed it): the job's work is not committed`);
    }
  }

  /**
   * The directory `logs/<id>` of the worktree `dir`, a real directory inside it: `logs` or
   * `logs/<id>` that is a link (to a directory of the host's, which the runner would write
   * `job.md` and `agent.log` into, and read `summary.md` from) or a file is removed (a link
   * unlinked, never followed) and made a directory again (sandbox review M1).
   */
  async #logDir(dir: string, id: string): Promise<string> {
    const logDir = join(dir, 'logs', id);
    for (const path of [join(dir, 'logs'), logDir]) {
      const stats = await lstat(path).catch(() => undefined);
      if (stats?.isDirectory()) continue;
      if (stats !== undefined) await unlink(path);
      await mkdir(path);
    }
    const [real, root] = await Promise.all([realpath(logDir), realpath(dir)]);
    if (!real.startsWith(`${root}/`)) throw new Error(`logs/${id} leads out of the job's worktree (to ${real}): nothing is written or read there`);
    return logDir;
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
    // service's environment in the job's summary and commit), nor from a FIFO (its open would
    // block a threadpool thread of the service's for good) or a device, nor more than its start
    // (bounded-file.ts): such a summary is not read, the log's last line is the summary.
    const file = await readAtMost(join(logDir, 'summary.md'), SUMMARY_READ_LIMIT).catch(() => undefined);
    // Without NULs: neither a commit message nor a stored text holds one (the log's last line is storable already).
    const written = file === undefined ? undefined : this.agent.redact(storableOutput(file.text));
    const text =
      written?.trim() ||
      log
        .trim()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .at(-1);
    // The cut can split a surrogate pair.
    return text ? storableText(text.slice(0, SUMMARY_LIMIT)) : null;
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
   * Commits what was added, with `message` (the job's first line, from outside the service, and
   * the agent's summary) on git's standard input (`-F -`): a command line (`-m <message>`) is
   * anyone's to read on this host (`ps`, /proc/<pid>/cmdline); an environment is only its user's.
   * The message goes by a variable to `printf`, a builtin of the shell: no program's argv holds it.
   */
  async #commit(dir: string, message: string): Promise<void> {
    await this.#git(dir, [...IDENTITY, 'commit', '--no-verify', '-q', '--allow-empty', '-F', '-'], {
      // A NUL (the agent's summary may hold one) cannot be in an environment variable, nor in a commit message.
      env: { [MESSAGE_VARIABLE]: message.replaceAll('\0', '') },
      script: (git) => `printf '%s\n' "$${MESSAGE_VARIABLE}" | ${git}`,
    });
  }

  /**
   * Whether a file of the worktree `dir` is given Git LFS's filter (`filter=lfs` in its attributes);
   * reads attributes only, runs no filter. Each file listed ends in a NUL (`-z`): a warning of git's
   * on stderr (the output holds both) lists none.
   */
  async #hasLfsFiles(dir: string): Promise<boolean> {
    const result = await this.#run(dir, [...NO_AGENT_PROGRAMS, 'ls-files', '-z', '--', ':(attr:filter=lfs)']);
    if (result.exitCode !== 0) throw this.#failure('ls-files', result);
    return result.output.includes('\0');
  }

  /**
   * Runs `git -C <dir> <args>`; fails with git's output when git does. Every argument (a branch,
   * a path) reaches git as an environment variable the command line only names, never as shell
   * code; `input` gives more variables and the script around git (#commit: the message on its
   * standard input, never in its arguments, which any user of the host can read). git gets a minimal environment (`PATH`, `HOME`,
   * `LANG`): none of the service's own variables reach it. No program the repository's config
   * names runs (NO_AGENT_PROGRAMS, filterOverrides). git's output in the error is redacted of the
   * job's secrets (the error is stored on the job and shown in its chat notice), as the agent's log is.
   * Resolves to whether Git LFS was kept for the command (filterOverrides).
   */
  async #git(
    dir: string,
    args: readonly string[],
    input?: { readonly env: Record<string, string>; readonly script: (git: string) => string },
  ): Promise<boolean> {
    const filters = await this.#filterOverrides(dir);
    const result = await this.#run(dir, [...NO_AGENT_PROGRAMS, ...filters.settings, ...args], input?.script, input?.env);
    if (result.exitCode !== 0) throw this.#failure(args.filter((arg) => !IDENTITY.includes(arg) && !arg.startsWith('alias.') && arg !== '-c')[0] ?? '', result);
    return filters.lfsKept;
  }

  /**
   * Settings that disable every filter driver git would find for `dir` but Git LFS's own: for each
   * `<name>` of a `filter.<name>.*` setting in any of its config files (includes, the user's and
   * the system's too), `clean`, `smudge`, `process` and `required` empty, which git takes for no
   * command and false (a file of the driver's is taken as it is). A driver runs a command of the
   * config's on each file a `.gitattributes` gives it (`git add`, the commit's index refresh, a
   * checkout), and both are the agent's to write, under a name of its choosing: the settings are
   * listed (`git config --get-regexp`, names and values) before each git command, in its own
   * directory (a conditional include applies there). `-c` cuts its argument at the first `=`, so a
   * name holding one goes by `--config-env` (git 2.31 on; older git refuses the option, and the
   * command fails). A name that is not UTF-8 (it could not be given back to git as it is) or a
   * listing cut short (over the shell's output limit) fails the command: no filter runs then either.
   *
   * `filter.lfs` whose four settings are exactly those `git lfs install` writes (GIT_LFS_DRIVER)
   * is kept: disabled, it would check LFS-tracked files out as their pointers and commit what the
   * agent changed of them as blobs, into history instead of LFS. What git-lfs runs then is its
   * own: it downloads nothing (GIT_LFS_SKIP_SMUDGE: an object missing from the repository's LFS
   * store stays a pointer; `git lfs checkout` after a checkout (run) puts the content of those it
   * holds in place; a download would run the config's transfer agents), and LFS extensions (`lfs.extension.<name>.clean`/`smudge`, programs git-lfs
   * runs on each file) fail the command. So does a `filter.lfs` with any of the four changed
   * (`process` set to a program of the agent's): disabled, it would have LFS-tracked files
   * committed raw, silently; the error names the settings to restore.
   *
   * A process of the agent's still running (one that left its process group) could add a driver
   * between the listing and the command: it runs as the service's user, with or without git.
   */
  async #filterOverrides(dir: string): Promise<{ readonly settings: string[]; readonly lfsKept: boolean }> {
    // git's settings (`<key>\n<value>` or, without a value, `<key>`, each NUL-terminated, on
    // stdout), a NUL and a line with git's exit code, then what git said on stderr.
    const listing = (git: string): string => `exec 3>&1; err=$(${git} 2>&1 >&3); code=$?; printf '\\0%s %s\\n%s' ${LISTING_END} "$code" "$err"`;
    const result = await this.#run(dir, ['config', '-z', '--get-regexp', '^(filter|lfs|hook)[.]'], listing);
    // Neither a key nor a value holds a NUL, and no key starts as the end line does.
    const cut = result.output.indexOf(`\0${LISTING_END} `);
    const end = cut === -1 ? null : new RegExp(`^${LISTING_END} (\\d+)\n`).exec(result.output.slice(cut + 1));
    if (end === null) {
      if (result.exitCode === 0) throw new Error('git config listed more filter drivers than the runner reads: it cannot disable them');
      throw this.#failure('config', result);
    }
    const code = Number(end[1]);
    // 1: no such setting.
    if (code !== 0 && code !== 1) throw this.#failure('config', { ...result, exitCode: code, output: result.output.slice(cut + 1 + end[0].length) });
    /** Each driver's settings, the last of a key's (the one git uses) kept. */
    const drivers = new Map<string, Map<string, string | null>>();
    const extensions: string[] = [];
    const hooks: string[] = [];
    for (const setting of result.output.slice(0, cut).split('\0').slice(0, -1)) {
      const newline = setting.indexOf('\n');
      const key = newline === -1 ? setting : setting.slice(0, newline);
      // git lists a section's name in lower case.
      if (key.startsWith('hook.')) hooks.push(key);
      // git-lfs reads its keys whatever their case.
      if (/^lfs[.]extension[.]/i.test(key)) extensions.push(key);
      // filter.<name>.<key>: the name is all between the first and the last dot (`filter.a.b.clean`: `a.b`).
      if (!key.startsWith('filter.') || key.lastIndexOf('.') <= 'filter'.length) continue;
      const name = key.slice('filter.'.length, key.lastIndexOf('.'));
      const values = drivers.get(name) ?? new Map<string, string | null>();
      values.set(key.slice(key.lastIndexOf('.') + 1), newline === -1 ? null : setting.slice(newline + 1));
      drivers.set(name, values);
    }
    if (hooks.length > 0) {
      throw new Error(
        `git config defines hooks (${[...new Set(hooks)].join(', ')}), programs git 2.54 and later runs whatever core.hooksPath says: the runner runs none; remove them (\`git config --show-origin --get-regexp '^hook[.]'\` shows where they are set)`,
      );
    }
    const overrides: string[] = [];
    let lfsKept = false;
    for (const [name, values] of drivers) {
      if (name.includes('\uFFFD')) throw new Error(`git config names a filter driver whose name is not UTF-8 (${JSON.stringify(name)}): it cannot be disabled`);
      if (name === 'lfs') {
        const changed = DRIVER_KEYS.filter((key) => values.get(key) !== GIT_LFS_DRIVER[key]).map((key) => `filter.lfs.${key}`);
        if (changed.length > 0) {
          throw new Error(
            `git config's filter.lfs is not Git LFS's own (${changed.join(', ')} not as \`git lfs install\` sets it): the runner runs no other program for it, nor commits LFS-tracked files past it; restore or remove it (\`git config --show-origin --get-regexp '^filter[.]lfs[.]'\` shows where it is set)`,
          );
        }
        if (extensions.length > 0) {
          throw new Error(
            `git config sets Git LFS extensions (${[...new Set(extensions)].join(', ')}), programs git-lfs would run on LFS-tracked files: the runner runs none; remove them (\`git config --show-origin --get-regexp '^lfs[.]extension[.]'\` shows where they are set)`,
          );
        }
        lfsKept = true;
        continue;
      }
      for (const key of DRIVER_KEYS) {
        const setting = `filter.${name}.${key}`;
        overrides.push(...(name.includes('=') ? [`--config-env=${setting}=${EMPTY_VARIABLE}`] : ['-c', `${setting}=`]));
      }
    }
    return { settings: overrides, lfsKept };
  }

  /** Runs `script(git)` (by default `exec git`), `git` the command line of `git -C <dir> <args>`, each value passed as a variable. */
  #run(dir: string, args: readonly string[], script = (git: string): string => `exec ${git}`, extra: Record<string, string> = {}): Promise<ShellRun> {
    const values = [dir, ...args];
    const env: Record<string, string> = {
      ...extra,
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      LANG: process.env.LANG ?? 'C.UTF-8',
      [EMPTY_VARIABLE]: '',
      // Git LFS, when kept (filterOverrides), downloads nothing: it checks pointers out, which
      // `git lfs checkout` then replaces with what the repository's LFS store holds.
      GIT_LFS_SKIP_SMUDGE: '1',
      GIT_SSH_COMMAND: 'false',
      GIT_TERMINAL_PROMPT: '0',
      // No fetch (NO_AGENT_PROGRAMS): no lazy fetch of a promisor remote's object (git 2.44 on),
      // no transport allowed whatever the config's protocol.* settings (a list naming none).
      GIT_NO_LAZY_FETCH: '1',
      GIT_ALLOW_PROTOCOL: '',
    };
    // In a job's worktree: its git directories as recorded before the agent ran (#recordWorktreeGit).
    const recorded = this.#worktreeGit.get(dir);
    if (recorded !== undefined) Object.assign(env, { GIT_DIR: recorded.gitDir, GIT_COMMON_DIR: recorded.commonDir, GIT_WORK_TREE: resolve(dir) });
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
