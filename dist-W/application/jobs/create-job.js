import { applyChange, branchOf } from '../../domain/jobs/job.js';
import { parseJobRequest, refuseNul } from '../../domain/jobs/job-request.js';
import { DomainError, isDomainError } from '../../domain/errors/domain-error.js';
export const JOB_RUN_QUEUE = 'job-run';
/**
 * Creates a job (SPEC 4.1): validates the request, checks the provider has its secret,
 * stores the job as `queued` and enqueues its run durably. Any failure past validation is
 * `Failed to create job`, with the cause kept for the log. Also the JobLauncher of
 * trigger `agent` actions.
 */
export class CreateJob {
    jobs;
    queue;
    secrets;
    ids;
    clock;
    logger;
    settings;
    constructor(jobs, queue, secrets, ids, clock, logger, settings) {
        this.jobs = jobs;
        this.queue = queue;
        this.secrets = secrets;
        this.ids = ids;
        this.clock = clock;
        this.logger = logger;
        this.settings = settings;
    }
    /** `id`: the new job's id when the caller chose it (an idempotency key names it before the job exists). */
    async execute(body, source = { kind: 'api' }, id) {
        const request = parseJobRequest(body);
        const job = await this.#create(request.job, request.llmProvider, request.llmModel, source, id);
        return { jobId: job.id, branch: job.branch, status: job.status };
    }
    async launch(launch) {
        // A prompt rendered from a request (trigger) or written by a model (chat) may hold a NUL.
        return (await this.#create(refuseNul('job', launch.job), launch.llmProvider, launch.llmModel, launch.source)).id;
    }
    async #create(prompt, providerName, model, source, chosenId) {
        const known = this.settings.llmProviders;
        if (providerName !== undefined && !known.includes(providerName)) {
            throw new DomainError('invalid_input', `Unknown llm_provider: ${providerName} (one of ${known.join(', ')})`);
        }
        const provider = providerName ?? this.settings.defaultProvider;
        if (provider !== undefined && !this.secrets.hasUsableSecret(provider)) {
            throw new DomainError('invalid_input', `llm_provider ${provider} has no secret configured (${this.secrets.secretName(provider)})`);
        }
        if (this.settings.unavailableReason !== undefined) {
            throw new DomainError('not_configured', `Jobs are not configured: ${this.settings.unavailableReason}`);
        }
        const now = this.clock.now();
        const id = chosenId ?? this.ids.next();
        const job = {
            id,
            job: prompt,
            status: 'queued',
            source,
            llmProvider: provider ?? null,
            llmModel: model ?? (providerName === undefined ? (this.settings.defaultModel ?? null) : null),
            branch: branchOf(id),
            prUrl: null,
            runUrl: null,
            summary: null,
            error: null,
            log: null,
            createdAt: now,
            updatedAt: now,
        };
        try {
            await this.jobs.add(job);
            await this.queue.enqueue(JOB_RUN_QUEUE, { jobId: id });
        }
        catch (error) {
            if (isDomainError(error) && error.code !== 'internal')
                throw error;
            this.logger.error({ err: error, jobId: id }, 'could not create job');
            await this.jobs.modify(id, (stored) => applyChange(stored, { status: 'failed', error: 'Could not be queued' }, this.clock.now())).catch(() => undefined);
            throw new DomainError('internal', 'Failed to create job', { cause: error });
        }
        this.logger.info({ jobId: id, source: source.kind, provider: job.llmProvider }, 'job created');
        return job;
    }
}
//# sourceMappingURL=create-job.js.map