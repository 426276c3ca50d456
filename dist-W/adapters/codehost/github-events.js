import { statusOfConclusion } from './github-actions-job-runner.js';
const JOB_BRANCH = /^job\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const field = (value, ...path) => path.reduce((current, key) => (typeof current === 'object' && current !== null ? current[key] : undefined), value);
const text = (value) => (typeof value === 'string' ? value : undefined);
const jobOf = (branch) => JOB_BRANCH.exec(text(branch) ?? '')?.[1]?.toLowerCase();
/** GitHub's `workflow_run`, `check_suite` and `pull_request` events for `job/<id>` branches. */
export class GithubEvents {
    jobUpdate(event, payload) {
        const action = text(field(payload, 'action'));
        if (event === 'workflow_run') {
            const jobId = jobOf(field(payload, 'workflow_run', 'head_branch'));
            if (!jobId)
                return null;
            const runUrl = text(field(payload, 'workflow_run', 'html_url')) ?? null;
            if (action === 'completed') {
                return { jobId, change: { runUrl, status: statusOfConclusion(text(field(payload, 'workflow_run', 'conclusion')) ?? null) } };
            }
            return { jobId, change: { runUrl, status: 'running' } };
        }
        if (event === 'check_suite') {
            const jobId = jobOf(field(payload, 'check_suite', 'head_branch'));
            if (!jobId || action !== 'completed')
                return null;
            return { jobId, change: { status: statusOfConclusion(text(field(payload, 'check_suite', 'conclusion')) ?? null) } };
        }
        if (event === 'pull_request') {
            const jobId = jobOf(field(payload, 'pull_request', 'head', 'ref'));
            const prUrl = text(field(payload, 'pull_request', 'html_url'));
            if (!jobId || !prUrl)
                return null;
            return { jobId, change: { prUrl } };
        }
        return null;
    }
}
//# sourceMappingURL=github-events.js.map