import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
const run = promisify(execFile);
const IDENTITY = ['-c', 'user.name=Agent Gateway', '-c', 'user.email=agent-gateway@localhost'];
const LOG_LIMIT = 64 * 1024;
const SUMMARY_LIMIT = 500;
/**
 * Runs jobs on this host: each in its own git worktree of the jobs repository on the
 * branch `job/<id>`, where the agent (an external command or the built-in loop) works.
 * The work, the prompt (`logs/<id>/job.md`) and the agent's log are committed to the branch.
 */
export class LocalJobRunner {
    settings;
    agent;
    kind = 'local';
    /** Repository-wide git operations (worktree add/remove) one at a time: git locks them. */
    #repositoryLock = Promise.resolve();
    constructor(settings, agent) {
        this.settings = settings;
        this.agent = agent;
    }
    async run(job, report, signal) {
        const dir = join(this.settings.worktreesDir, job.id);
        await this.#exclusive(async () => {
            await this.#ensureRepository();
            await this.#removeLeftWorktrees();
            await rm(dir, { recursive: true, force: true });
            await run('git', ['-C', this.settings.repoDir, 'worktree', 'prune']);
            await run('git', ['-C', this.settings.repoDir, 'worktree', 'add', '-B', job.branch, dir, 'HEAD']);
        });
        try {
            const logDir = join(dir, 'logs', job.id);
            await mkdir(logDir, { recursive: true });
            await writeFile(join(logDir, 'job.md'), `# Job ${job.id}\n\nProvider: ${job.llmProvider ?? 'default'}\nModel: ${job.llmModel ?? 'default'}\n\n${job.job}\n`);
            const result = await this.agent.run(job, dir, signal);
            const log = result.log.slice(-LOG_LIMIT);
            await writeFile(join(logDir, 'agent.log'), log);
            const summary = await this.#summary(logDir, log);
            await run('git', ['-C', dir, ...IDENTITY, 'add', '-A']);
            await run('git', ['-C', dir, ...IDENTITY, 'commit', '--allow-empty', '-m', `job ${job.id}: ${firstLine(job.job)}`, '-m', summary ?? '']);
            // Stopped (cancelled, or the service stopping): what the agent did until then is kept; the
            // status is not ours to say — a cancelled job stays cancelled, an interrupted one is failed by RunJob.
            if (result.aborted)
                return await report({ summary, log });
            await report({ status: result.ok ? 'succeeded' : 'failed', summary, log, error: result.error });
        }
        finally {
            await this.#exclusive(() => run('git', ['-C', this.settings.repoDir, 'worktree', 'remove', '--force', dir]).catch(() => rm(dir, { recursive: true, force: true })));
        }
    }
    #leftWorktreesRemoved = false;
    /**
     * Once per process, before its first worktree is made: worktrees an earlier process left (it was
     * stopped, or killed, before it removed the worktree of a job it ran) are removed. No job of
     * this process has a worktree yet (they are made one at a time, under the repository lock).
     */
    async #removeLeftWorktrees() {
        if (this.#leftWorktreesRemoved)
            return;
        this.#leftWorktreesRemoved = true;
        const left = await readdir(this.settings.worktreesDir).catch(() => []);
        for (const name of left)
            await rm(join(this.settings.worktreesDir, name), { recursive: true, force: true });
    }
    #exclusive(work) {
        const result = this.#repositoryLock.then(work, work);
        this.#repositoryLock = result.catch(() => undefined);
        return result;
    }
    /**
     * The agent's own `logs/<id>/summary.md` when it wrote one, else the last line it printed.
     * The summary is stored on the job, put in the commit message and read by the chat model:
     * it is redacted like the log.
     */
    async #summary(logDir, log) {
        const file = await readFile(join(logDir, 'summary.md'), 'utf8').catch(() => undefined);
        const written = file === undefined ? undefined : this.agent.redact(file);
        const text = written?.trim() ||
            log
                .trim()
                .split('\n')
                .filter((line) => line.trim() !== '')
                .at(-1);
        return text ? text.slice(0, SUMMARY_LIMIT) : null;
    }
    async #ensureRepository() {
        if (existsSync(join(this.settings.repoDir, '.git')) || existsSync(join(this.settings.repoDir, 'HEAD')))
            return;
        await mkdir(this.settings.repoDir, { recursive: true });
        await run('git', ['-C', this.settings.repoDir, 'init', '-q', '-b', 'main']);
        await writeFile(join(this.settings.repoDir, 'README.md'), '# Agent Gateway jobs\n\nEach job works on a branch job/<id>.\n');
        await run('git', ['-C', this.settings.repoDir, ...IDENTITY, 'add', 'README.md']);
        await run('git', ['-C', this.settings.repoDir, ...IDENTITY, 'commit', '-q', '-m', 'Start the jobs repository']);
    }
}
const firstLine = (text) => {
    const line = text.trim().split('\n')[0] ?? '';
    return line.length > 72 ? `${line.slice(0, 69)}...` : line;
};
//# sourceMappingURL=local-job-runner.js.map