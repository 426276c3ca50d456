import { canonicalJson, IDEMPOTENCY_WINDOW_MS, parseIdempotencyKey } from '../../domain/jobs/idempotency.js';
import { parseJobRequest, readJobRequest } from '../../domain/jobs/job-request.js';
import { DomainError, isDomainError } from '../../domain/errors/domain-error.js';
import type { Job, JobSource } from '../../domain/jobs/job.js';
import type { ApiKeyCrypto } from '../../ports/api-key-crypto.js';
import type { Clock } from '../../ports/clock.js';
import type { IdempotencyKeyStore, IdempotencyRecord } from '../../ports/idempotency-key-store.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { CreateJob, CreateJobResult } from './create-job.js';

export interface CreateJobOnceInput {
  readonly body: unknown;
  /** The `Idempotency-Key` header as received (absent, once, or repeated). */
  readonly idempotencyKey: string | readonly string[] | undefined;
  /** The caller's API key id: keys are per caller. */
  readonly apiKeyId: string;
}

export interface CreateJobOnceResult extends CreateJobResult {
  /** True when the key named a job created before: nothing was created now. */
  readonly replayed: boolean;
}

/** One step of the gateway's own work that creates a job, identified across its attempts (CreateJobOnce.keyed). */
export interface KeyedJobInput {
  readonly body: unknown;
  readonly source: JobSource;
  /**
   * The namespace of `key`, up to 64 characters: a name that is no API key's id (those are
   * UUIDs), such as KEYED_CHAT_SCOPE, so that no client's `Idempotency-Key` can name the job.
   */
  readonly scope: string;
  /** What identifies the step across attempts, up to 255 characters. */
  readonly key: string;
}

/** The scope of the keys of the jobs the chat's `create_job` tool creates (ChatAgent). */
export const KEYED_CHAT_SCOPE = 'chat';

/** A claim whose job is still not stored this long after it was made names no job: its claimer stopped in between. */
export const ORPHANED_CLAIM_MS = 60_000;

/** What CreateJob refuses before it inserts the job (a provider without its secret, jobs not configured, a full queue). */
const REFUSED_UNSTORED: ReadonlySet<string> = new Set(['invalid_input', 'not_configured', 'busy']);

/**
 * POST /api/create-job with an optional `Idempotency-Key` (docs/api.md): the first request with
 * a key creates the job; the same key and body within 24 hours answers with that job and creates
 * nothing; the same key with another body is a conflict. The key is claimed, naming the new job's
 * id, before the job is created — so of concurrent duplicates only one creates it — and released
 * when the job is known not to be stored (refused, or its insert failed), so the caller may retry
 * with the same key. A job stored whose task could not be queued (the request answered 503) is
 * kept `queued` under the key: the retry answers with it and queues its task, one job whatever
 * failed in between; a key whose job's storing is unknown (the database failed on the look) is
 * kept too, and taken over as below should its job be missing. A duplicate that
 * arrives while the first is still creating the job is a conflict (409, try again) rather than an
 * answer naming a job that may yet fail to be created. A claim whose job is still missing a
 * minute on is taken over: the job is created under the claim's id, so that should its first
 * claimer be slow rather than stopped, only one of the two stores it.
 */
export class CreateJobOnce {
  constructor(
    private readonly createJob: CreateJob,
    private readonly keys: IdempotencyKeyStore,
    private readonly jobs: JobRepository,
    private readonly crypto: ApiKeyCrypto,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  /**
   * The 400 that execute would throw for a body that can create no job (SPEC 4.1, 7), returned
   * at once, or undefined for a valid body: lets the HTTP edge refuse a bad request without
   * starting anything asynchronous, and without a throw (see readJobRequest).
   */
  problemWith(body: unknown): DomainError | undefined {
    const read = readJobRequest(body);
    return read instanceof DomainError ? read : undefined;
  }

  async execute(input: CreateJobOnceInput): Promise<CreateJobOnceResult> {
    parseJobRequest(input.body); // a bad body is a 400 whatever the key
    const key = parseIdempotencyKey(input.idempotencyKey);
    if (key === undefined) return { ...(await this.createJob.execute(input.body)), replayed: false };

    const now = this.clock.now();
    const claim = { scope: input.apiKeyId, key, fingerprint: this.crypto.digest(canonicalJson(input.body)), jobId: this.ids.next(), createdAt: now };
    const held = await this.keys.claim(claim, new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS));
    if (held.jobId === claim.jobId) return this.#create(input.body, held, key);
    if (held.fingerprint !== claim.fingerprint) {
      throw new DomainError('conflict', `Idempotency-Key ${JSON.stringify(key)} was already used with a different request body`);
    }
    const job = await this.jobs.get(held.jobId);
    if (job) return this.#answer(job);
    // Its claimer stopped (killed) between the claim and the job's insert, or is that slow: the
    // job is created here under the claim's id (the slow one's insert of it then fails).
    if (now.getTime() - held.createdAt.getTime() > ORPHANED_CLAIM_MS) return this.#create(input.body, held, key);
    throw new DomainError(
      'conflict',
      `A request with Idempotency-Key ${JSON.stringify(key)} is still creating its job; send it again in a moment to get the job (or the error it ended with)`,
    );
  }

  /**
   * The job of `scope` and `key`, created by the first call only, whatever the body of the later
   * ones: for a step of the gateway's own work that may run again (a chat task run again after a
   * kill, its model asked again and wording the job anew), not for a client sending one request
   * again. A later call gets the job the key names (`replayed`), never a conflict; the key does
   * not expire while it is kept (24 hours: the retention sweep). A claim whose job is missing —
   * its claimer stopped between the claim and the job's insert, or is still inserting — is
   * taken over at once: the job is created under the claim's id, so that of two attempts at
   * once only one stores it and both get it. A call that stores no job (a body refused, the
   * insert failing) releases the key: the caller's next call with it may create the job.
   */
  async keyed(input: KeyedJobInput): Promise<CreateJobOnceResult> {
    parseJobRequest(input.body); // a bad body claims nothing
    const now = this.clock.now();
    const claim = { scope: input.scope, key: input.key, fingerprint: this.crypto.digest(canonicalJson(input.body)), jobId: this.ids.next(), createdAt: now };
    // notBefore the epoch: a record found is never replaced, however old (only the sweep forgets it).
    const held = await this.keys.claim(claim, new Date(0));
    if (held.jobId !== claim.jobId) {
      const job = await this.jobs.get(held.jobId);
      if (job) return this.#answer(job);
    }
    return this.#create(input.body, held, input.key, input.source, true);
  }

  /**
   * Creates the job under the claim's id. When it cannot be, the key is released (the caller
   * may retry with it) only once the job is known not to be stored under that id: a job stored is
   * kept under the key — the answer, when another request stored it meanwhile (a claim taken
   * over) or the insert's answer was lost; else the failure is thrown, the job kept `queued` for
   * the caller's retry (API keys), or `failed` as it could not be queued (`keyed`: its status says
   * so, and it is the answer). Whether it is stored not known (the look failed), the key is kept:
   * a retry finds the job, or takes the claim over (`execute`: once a minute old).
   */
  async #create(body: unknown, claim: IdempotencyRecord, key: string, source: JobSource = { kind: 'api' }, keyed = false): Promise<CreateJobOnceResult> {
    try {
      return { ...(await this.createJob.execute(body, source, claim.jobId, keyed ? 'fail' : 'keep')), replayed: false };
    } catch (error) {
      const stored = await this.jobs.get(claim.jobId).then(
        (job) => job,
        () => undefined,
      );
      // A request refused before its insert (REFUSED_UNSTORED) stored nothing itself: its key is
      // released when the look fails too (another attempt storing the job under the claim's id
      // meanwhile is found by a look that answers).
      const refused = isDomainError(error) && REFUSED_UNSTORED.has(error.code);
      if (stored === null || (stored === undefined && refused)) await this.keys.release(claim.scope, key, claim.jobId).catch(() => undefined);
      if (stored && (keyed || (isDomainError(error) && error.code === 'conflict'))) return this.#answer(stored);
      throw error;
    }
  }

  /**
   * The answer naming `job`, stored before: a job still `queued` gets its task, should the
   * request that stored it have failed to queue it (a task stored already is not stored again).
   */
  async #answer(job: Job): Promise<CreateJobOnceResult> {
    if (job.status === 'queued') await this.createJob.queueTask(job.id);
    return { jobId: job.id, branch: job.branch, status: job.status, replayed: true };
  }
}
