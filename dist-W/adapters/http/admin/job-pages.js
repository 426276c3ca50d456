import { isFinished } from '../../../domain/jobs/job.js';
import { untrustedJobNotice } from '../../../domain/templates/render-prompt.js';
import { isDomainError } from '../../../domain/errors/domain-error.js';
import { NOTICE, notFound, sendPage, seeOther, showPage, signedIn, uuidParameter } from './admin-http.js';
import { setFlash } from './flash.js';
import { badge, excerpt, maybeStamp, stamp } from './present.js';
/**
 * A prompt's glimpse for the list: a prompt holding outside text starts with the notice about
 * its untrusted blocks (renderPrompt), which says nothing about the job; the list shows what
 * follows it, with each block's tags as quotes. The job's page shows the prompt as it is.
 */
const NOTICE_LINE = untrustedJobNotice('0').split('\n')[0];
export const promptGlimpse = (prompt) => {
    const task = prompt.startsWith(NOTICE_LINE) && prompt.includes('\n\n') ? prompt.slice(prompt.indexOf('\n\n') + 2) : prompt;
    return excerpt(task.replace(/<untrusted-input-[0-9a-f]+ source="[^"]*">/g, '“').replace(/<\/untrusted-input-[0-9a-f]+>/g, '”'), 90);
};
const sourceOf = (job) => (job.source.kind === 'trigger' ? `trigger ${job.source.name}` : job.source.kind);
/** Only http(s) URLs become links: a URL from an outside system is shown, never followed as a script. */
const outsideLink = (url) => (url === null ? null : { href: /^https?:\/\//i.test(url) ? url : null, text: url });
/** What changes while a job runs: refreshed by htmx every 2 s until the job is finished. */
const liveModel = (job, now) => ({
    id: job.id,
    polling: !isFinished(job.status),
    cancellable: !isFinished(job.status),
    status: badge(job.status),
    prUrl: outsideLink(job.prUrl),
    runUrl: outsideLink(job.runUrl),
    updatedAt: stamp(job.updatedAt, now),
    summary: job.summary,
    error: job.error,
    log: job.log,
});
const BACK = { href: '/settings/jobs', label: 'Back to the jobs' };
/** Jobs: the list, one job (live while it runs), cancel after a confirmation. */
export const registerJobPages = (router, tools) => {
    const { overview, cancelJob } = tools.deps;
    /** The job of the route's id, or null (a malformed id is no job either). */
    const jobOf = async (ctx) => {
        const id = uuidParameter(ctx, 0);
        return id === undefined ? null : overview.job(id);
    };
    router.get('/settings/jobs', async (ctx) => {
        const now = new Date();
        const jobs = (await overview.recentJobs()).map((job) => ({
            id: job.id,
            shortId: job.id.slice(0, 8),
            status: badge(job.status),
            source: sourceOf(job),
            prompt: promptGlimpse(job.job),
            createdAt: stamp(job.createdAt, now),
            cancellable: !isFinished(job.status),
        }));
        showPage(ctx, tools, 'jobs', 'Jobs', 'jobs', { jobs });
    });
    router.get('/settings/jobs/:id', async (ctx) => {
        const job = await jobOf(ctx);
        if (!job)
            return notFound(ctx, tools, 'No such job.', BACK);
        const now = new Date();
        const model = {
            job: {
                id: job.id,
                source: sourceOf(job),
                branch: job.branch,
                provider: job.llmProvider ?? 'default',
                model: job.llmModel ?? 'default',
                createdAt: maybeStamp(job.createdAt, now),
                prompt: job.job,
            },
            live: liveModel(job, now),
        };
        showPage(ctx, tools, 'job', `Job ${job.id.slice(0, 8)}`, 'jobs', model, { htmx: !isFinished(job.status) });
    });
    router.get('/settings/jobs/:id/live', async (ctx) => {
        const job = await jobOf(ctx);
        if (!job)
            return notFound(ctx, tools, 'No such job.', BACK);
        sendPage(ctx, 200, tools.views.fragment('jobLive', { live: liveModel(job, new Date()) }));
    });
    router.get('/settings/jobs/:id/cancel', async (ctx) => {
        const job = await jobOf(ctx);
        if (!job)
            return notFound(ctx, tools, 'No such job.', BACK);
        showPage(ctx, tools, 'cancelJob', 'Cancel job', 'jobs', {
            job: { id: job.id, shortId: job.id.slice(0, 8), status: badge(job.status), prompt: promptGlimpse(job.job), cancellable: !isFinished(job.status) },
        });
    });
    router.post('/settings/jobs/:id/cancel', tools.form, async (ctx) => {
        const id = uuidParameter(ctx, 0);
        const job = id === undefined ? null : await overview.job(id);
        if (!job || id === undefined)
            return notFound(ctx, tools, 'No such job.', BACK);
        let text = `Job ${id.slice(0, 8)} cancelled.`;
        await cancelJob.execute(id).catch((error) => {
            // Finished meanwhile (conflict): nothing to cancel any more, which the page then shows.
            if (!isDomainError(error))
                throw error;
            text = `Job ${id.slice(0, 8)} had already finished; nothing was cancelled.`;
        });
        setFlash(ctx, NOTICE, signedIn(ctx).session.csrfToken, { kind: 'notice', text });
        seeOther(ctx, `/settings/jobs/${id}`);
    });
};
//# sourceMappingURL=job-pages.js.map