/** A finished workflow run's conclusion as a job status. */
export const statusOfConclusion = (conclusion) => conclusion === 'success' ? 'succeeded' : conclusion === 'cancelled' ? 'cancelled' : 'failed';
/**
 * Runs jobs on GitHub Actions: creates `job/<id>` from the default branch with a commit
 * adding `logs/<id>/job.md`; the repository's workflow (docs/templates/agent-job.yml) runs
 * on pushes to `job/**`, runs the agent and opens the pull request. Progress arrives as
 * code-host events; `poll` reads the branch's workflow runs as a fallback.
 */
export class GithubActionsJobRunner {
    github;
    kind = 'github-actions';
    constructor(github) {
        this.github = github;
    }
    async run(job, report) {
        const { default_branch: base } = await this.github.request('GET', '');
        const ref = await this.github.request('GET', `/git/ref/heads/${encodeURIComponent(base)}`);
        await this.github.request('POST', '/git/refs', { ref: `refs/heads/${job.branch}`, sha: ref.object.sha });
        const content = [
            `# Job ${job.id}`,
            '',
            `- llm_provider: ${job.llmProvider ?? 'default'}`,
            `- llm_model: ${job.llmModel ?? 'default'}`,
            '',
            job.job,
            '',
        ].join('\n');
        await this.github.request('PUT', `/contents/logs/${job.id}/job.md`, {
            message: `job ${job.id}: start`,
            content: Buffer.from(content, 'utf8').toString('base64'),
            branch: job.branch,
        });
        await report({ summary: `Handed to GitHub Actions on ${job.branch}` });
    }
    async poll(job) {
        const { workflow_runs: runs } = await this.github.request('GET', `/actions/runs?branch=${encodeURIComponent(job.branch)}&per_page=1`);
        const [latest] = runs;
        if (!latest)
            return null;
        if (latest.status !== 'completed')
            return { runUrl: latest.html_url };
        return { runUrl: latest.html_url, status: statusOfConclusion(latest.conclusion) };
    }
}
//# sourceMappingURL=github-actions-job-runner.js.map