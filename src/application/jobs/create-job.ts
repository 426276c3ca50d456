import { applyChange, branchOf, type Job, type JobSource } from '../../domain/jobs/job.js';
import { modelProblem, parseJobRequest, refuseNul } from '../../domain/jobs/job-request.js';
import { DomainError, isDomainError } from '../../domain/errors/domain-error.js';
import { shownInput } from '../../domain/errors/shown-input.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { JobLaunch, JobLauncher } from '../../ports/job-launcher.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { Logger } from '../../ports/logger.js';
import type { SecretStore } from '../../ports/secret-store.js';
import type { TaskQueue } from '../../ports/task-queue.js';

export const JOB_RUN_QUEUE = 'job-run';

export interface JobRunTask {
  readonly jobId: string;
}

/** The key of a job's run task: one task per job, however often it is queued (RequeueStrandedJobs). */
export const jobRunKey = (jobId: string): string => `job:${jobId}`;

export interface CreateJobResult {
  readonly jobId: string;
  readonly branch: string;
  readonly status: string;
}

export interface CreateJobSettings {
  /** The AI providers a job may name (the AI provider registry). */
  readonly llmProviders: readonly string[];
  /** Provider of jobs that name none (LLM_PROVIDER); undefined leaves it to the agent. */
  readonly defaultProvider: string | undefined;
  readonly defaultModel: string | undefined;
  /** Why no job can run here, when none can (no runner/agent configured). */
  readonly unavailableReason: string | undefined;
  /**
   * Why a job of this provider and model (undefined: none named, none configured) could not run
   * on this gateway's agent, or undefined when it can: the built-in agent's `custom` needs a
   * server URL and a model. Such a job is refused (400) rather than failing when it runs.
   */
  readonly providerProblem?: (provider: string, model: string | undefined) => string | undefined;
  /** The longest prompt the agent can be given, in bytes of UTF-8, and why; unset, no limit but the body's. */
  readonly promptLimit?: { readonly bytes: number; readonly why: string };
  /**
   * The most jobs that may wait to run (`queued`), and the setting that says so (JOB_QUEUE_LIMIT):
   * a job past it is refused (`busy`), whoever creates it. Unset, no limit.
   */
  readonly queueLimit?: { readonly jobs: number; readonly setting: string };
}

/**
 * How often a full job queue is logged: a flood of refused creations (a client retrying, a
 * trigger fired in a loop) would otherwise write a line each. The next line counts those left out.
 */
export const QUEUE_FULL_LOG_EVERY_MS = 60_000;

/**
 * Creates a job (SPEC 4.1): validates the request, checks the provider has its secret,
 * stores the job as `queued` and enqueues its run durably. Any failure past validation is
 * `Failed to create job`, with the cause kept for the log. Also the JobLauncher of
 * trigger `agent` actions. With a queue limit, a job is stored only while fewer than that many
 * wait to run (counted and stored in one step: JobRepository.addWithinQueueLimit); past it, the
 * job is refused as `busy`, naming the limit and its setting — for the API, trigger and schedule
 * actions and the chat alike, each creation of a job passing here.
 */
export class CreateJob implements JobLauncher {
  /** When a full queue was last logged, and the refusals since (see QUEUE_FULL_LOG_EVERY_MS). */
  #queueFullLogged: number | undefined;
  #refusedSinceLogged = 0;

  constructor(
    private readonly jobs: JobRepository,
    private readonly queue: TaskQueue,
    private readonly secrets: SecretStore,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: CreateJobSettings,
  ) {}

  /**
   * `id`: the new job's id when the caller chose it (an idempotency key names it before the job
   * exists). `unqueued`: what becomes of a job stored whose task could not be queued — `fail`
   * marks it failed (`Could not be queued`), so that it never runs; `keep` leaves it `queued`, for
   * the request sent again under its key to get it and queue its task (`queueTask`): a client's
   * `Idempotency-Key` (CreateJobOnce), whose retry must find the job its first attempt stored
   * rather than create a second one. Should no retry come, RequeueStrandedJobs queues it.
   */
  async execute(body: unknown, source: JobSource = { kind: 'api' }, id?: string, unqueued: 'fail' | 'keep' = 'fail'): Promise<CreateJobResult> {
    const request = parseJobRequest(body);
    const job = await this.#create(request.job, request.llmProvider, request.llmModel, source, id, unqueued);
    return { jobId: job.id, branch: job.branch, status: job.status };
  }

  /**
   * Queues the run of the stored, `queued` job `jobId` under the job's own key: nothing is
   * stored when its task is (a task per job). For a job whose first request stored it but could
   * not queue its task (`unqueued: 'keep'`), when that request comes again.
   * @throws `Failed to create job` (internal), caused by the queue's failure.
   */
  async queueTask(jobId: string): Promise<void> {
    if ((await this.#enqueue(jobId)) !== null) this.logger.info({ jobId }, 'job queued by its request sent again');
  }

  /** The task's id, or null when the job's task was stored already. */
  async #enqueue(jobId: string): Promise<string | null> {
    try {
      return await this.queue.enqueue(JOB_RUN_QUEUE, { jobId } satisfies JobRunTask, { key: jobRunKey(jobId) });
    } catch (error) {
      this.logger.error({ err: error, jobId }, 'could not queue job');
      throw new DomainError('internal', 'Failed to create job', { cause: error });
    }
  }

  async launch(launch: JobLaunch): Promise<string> {
    // A prompt rendered from a request (trigger) or written by a model (chat) may hold a NUL;
    // a model named by a chat's model may be anything.
    const badModel = modelProblem(launch.llmModel);
    if (badModel !== undefined) throw badModel;
    return (await this.#create(refuseNul('job', launch.job), launch.llmProvider, launch.llmModel, launch.source)).id;
  }

  async #create(
    prompt: string,
    providerName: string | undefined,
    model: string | undefined,
    source: JobSource,
    chosenId?: string,
    unqueued: 'fail' | 'keep' = 'fail',
  ): Promise<Job> {
    const known = this.settings.llmProviders;
    if (providerName !== undefined && !known.includes(providerName)) {
      throw new DomainError('invalid_input', `Unknown llm_provider: ${shownInput(providerName)} (one of ${known.join(', ')})`);
    }
    const provider = providerName ?? this.settings.defaultProvider;
    if (provider !== undefined && !this.secrets.hasUsableSecret(provider)) {
      throw new DomainError('invalid_input', `llm_provider ${provider} has no secret configured (${this.secrets.secretName(provider)})`);
    }
    if (this.settings.unavailableReason !== undefined) {
      throw new DomainError('not_configured', `Jobs are not configured: ${this.settings.unavailableReason}`);
    }
    // LLM_MODEL is the model of the configured provider, also when a request names that
    // provider: `custom` has no model of its own, and a job naming it without llm_model failed
    // when it ran ("No model is configured for custom (LLM_MODEL)") where one naming none ran.
    const jobModel = model ?? (providerName === undefined || providerName === this.settings.defaultProvider ? this.settings.defaultModel : undefined);
    const providerProblem = provider === undefined ? undefined : this.settings.providerProblem?.(provider, jobModel);
    if (providerProblem !== undefined) throw new DomainError('invalid_input', `llm_provider ${provider} cannot run here: ${providerProblem}`);
    const limit = this.settings.promptLimit;
    if (limit !== undefined && prompt.length > limit.bytes / 3) {
      const bytes = new TextEncoder().encode(prompt).length;
      // Refused now, as it could only fail when it runs.
      if (bytes > limit.bytes)
        throw new DomainError('invalid_input', `job is ${bytes} bytes long, more than this gateway's agent takes (${limit.bytes}): ${limit.why}`);
    }
    const now = this.clock.now();
    const id = chosenId ?? this.ids.next();
    const job: Job = {
      id,
      job: prompt,
      status: 'queued',
      source,
      llmProvider: provider ?? null,
      llmModel: jobModel ?? null,
      branch: branchOf(id),
      prUrl: null,
      runUrl: null,
      summary: null,
      error: null,
      log: null,
      createdAt: now,
      updatedAt: now,
    };
    const queueLimit = this.settings.queueLimit;
    let stored = true;
    try {
      if (queueLimit === undefined) await this.jobs.add(job);
      else stored = await this.jobs.addWithinQueueLimit(job, queueLimit.jobs);
    } catch (error) {
      if (isDomainError(error) && error.code !== 'internal') throw error;
      // A job of the chosen id stored meanwhile (an idempotent request taken over) is not this one's to touch.
      if (chosenId !== undefined && (await this.jobs.get(id).catch(() => null)) !== null) throw new DomainError('conflict', `Job ${id} exists already`);
      this.logger.error({ err: error, jobId: id }, 'could not create job');
      throw new DomainError('internal', 'Failed to create job', { cause: error });
    }
    if (!stored && queueLimit !== undefined) {
      this.#logQueueFull(source, queueLimit.jobs);
      throw new DomainError(
        'busy',
        `Job queue full: ${queueLimit.jobs === 1 ? '1 job is' : `${queueLimit.jobs} jobs are`} already waiting to run (${queueLimit.setting}=${queueLimit.jobs}); try again once some have started`,
      );
    }
    try {
      await this.#enqueue(id);
    } catch (error) {
      if (unqueued === 'fail')
        await this.jobs
          .modify(id, (stored) => applyChange(stored, { status: 'failed', error: 'Could not be queued' }, this.clock.now()))
          .catch(() => undefined);
      throw error;
    }
    this.logger.info({ jobId: id, source: source.kind, provider: job.llmProvider }, 'job created');
    return job;
  }

  #logQueueFull(source: JobSource, limit: number): void {
    this.#refusedSinceLogged++;
    const now = this.clock.now().getTime();
    if (this.#queueFullLogged !== undefined && now - this.#queueFullLogged < QUEUE_FULL_LOG_EVERY_MS) return;
    this.logger.warn({ source: source.kind, limit, refused: this.#refusedSinceLogged }, 'job refused: the job queue is full');
    this.#queueFullLogged = now;
    this.#refusedSinceLogged = 0;
  }
}
