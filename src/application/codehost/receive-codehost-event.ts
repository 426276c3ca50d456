import { DomainError, isDomainError } from '../../domain/errors/domain-error.js';
import { applyChange, type Job } from '../../domain/jobs/job.js';
import type { Clock } from '../../ports/clock.js';
import type { CodehostEvents } from '../../ports/codehost-events.js';
import type { JobRepository } from '../../ports/job-repository.js';
import type { RequestSnapshot } from '../../domain/templates/request-snapshot.js';
import type { DeliveryLog } from '../../ports/delivery-log.js';
import type { Logger } from '../../ports/logger.js';
import type { WebhookSignatureVerifier } from '../../ports/webhook-signature-verifier.js';
import type { FireTriggers } from '../triggers/fire-triggers.js';
import type { AgentActionsGuard } from '../triggers/run-trigger.js';
import { CODEHOST_WATCH_PATH, ownJobBranchReason, ownMergeReason } from '../../domain/triggers/codehost-trigger-warnings.js';

/** The longest delivery id kept (GitHub's are UUIDs). */
const MAX_DELIVERY_ID_LENGTH = 200;
/** The longest event name kept (GitHub's are short words). */
const MAX_EVENT_LENGTH = 100;
/**
 * A delivery recorded longer ago than this is not worked on again when it comes again: GitHub
 * redelivers only deliveries of its last few days (3 on github.com), so one whose first attempt
 * stopped before storing its work is redone well within this; the requests that fired triggers
 * are kept 15 days at least (retention: WAITING_TASK_DAYS + 1), so past it the request a
 * remembered delivery stored may be gone, and doing the work again would fire its triggers again,
 * for whoever kept its id and body (deliveries may be remembered for good).
 */
const REDELIVERY_DAYS = 14;
const DAY_MS = 86_400_000;

export interface CodehostDelivery {
  readonly rawBody: Buffer;
  readonly signature: string | undefined;
  readonly event: string | undefined;
  readonly deliveryId: string | undefined;
  readonly watchPath: string;
  /**
   * Parses `rawBody`, called only once the signature over it is verified: its value, or a
   * DomainError thrown for a body that cannot be taken (a 400 for one that is not UTF-8 or not
   * JSON, a 415 for one in a charset we do not take). A caller without the secret so never has its
   * body parsed, and gets its 401 whatever it sent.
   */
  readonly parseBody: () => unknown;
  /** What the triggers see of the request, taken once its body is parsed. */
  readonly request: () => RequestSnapshot;
}

export interface CodehostOutcome {
  readonly ok: true;
  /** Names of the triggers that fired (none for ping and redeliveries). */
  readonly triggers: string[];
  readonly duplicate?: true;
  /** The job the event was about, when it was about one. */
  readonly job?: string;
}

/**
 * SPEC 4.5, 5.6: a code-host delivery is verified by its signature before anything else
 * (refused while CODEHOST_WEBHOOK_SECRET is unset); one without a delivery id or an event is refused;
 * an event its payload cannot be of (GitHub's known payload shapes) is refused (400); `ping`
 * is acknowledged; a delivery id seen before, or, for an event whose payloads are never the same
 * twice, a body seen before under another delivery id (the signature covers the body only), is
 * acknowledged without running again (a redelivery within REDELIVERY_DAYS redoes what its first
 * attempt may not have stored, storing nothing twice); any other
 * verified event updates the job of its `job/<id>` branch (idempotently, in
 * any order: a finished job stays finished) and fires the triggers watching the endpoint.
 */
export class ReceiveCodehostEvent {
  constructor(
    private readonly verifier: WebhookSignatureVerifier,
    private readonly deliveries: DeliveryLog,
    private readonly fireTriggers: FireTriggers,
    private readonly events: CodehostEvents,
    private readonly jobs: JobRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /**
     * Called with the job an event updated, as stored afterwards, and the delivery's key
     * (`codehost:<id>`), the same for each redelivery of it (auto-merge: RequestAutoMerge, which
     * queues one attempt per delivery however often it comes).
     */
    private readonly afterJobUpdate?: (job: Job, cause: string) => Promise<void>,
  ) {}

  /**
   * What the headers alone can tell, checked before the body is read: a request whose
   * signature header could never verify (none, malformed, or no secret configured) is refused.
   * @throws DomainError `unauthorized`.
   */
  authorize(signature: string | undefined, event: string | undefined): void {
    if (!this.verifier.couldVerify(signature)) this.#refuse(event, 'missing or malformed signature, or no secret configured');
  }

  /**
   * The delivery id and the event are required (after the signature check, so an unsigned caller
   * learns nothing more than 401): the id is what keeps a replayed delivery from running again,
   * the event what its payload is checked against.
   */
  async execute(delivery: CodehostDelivery): Promise<CodehostOutcome> {
    if (!this.verifier.verify(delivery.rawBody, delivery.signature)) this.#refuse(delivery.event, 'bad or missing signature');
    const body = delivery.parseBody();
    const id = delivery.deliveryId;
    if (id === undefined || id.trim() === '') throw new DomainError('invalid_input', 'Missing X-GitHub-Delivery header');
    if (id.length > MAX_DELIVERY_ID_LENGTH)
      throw new DomainError('invalid_input', `Invalid X-GitHub-Delivery header: longer than ${MAX_DELIVERY_ID_LENGTH} characters`);
    // GitHub names the event of every delivery; without it the payload could not be checked against it.
    const event = delivery.event;
    if (event === undefined || event.trim() === '') throw new DomainError('invalid_input', 'Missing X-GitHub-Event header');
    if (event.length > MAX_EVENT_LENGTH) throw new DomainError('invalid_input', `Invalid X-GitHub-Event header: longer than ${MAX_EVENT_LENGTH} characters`);
    // The event header is not signed: a captured body sent again as another event is refused.
    const mismatch = this.events.mismatch(event, body);
    if (mismatch !== undefined) throw new DomainError('invalid_input', mismatch);
    if (event === 'ping') return { ok: true, triggers: [] };
    // Neither is the delivery id: for a payload that is always unique (an id, an update time),
    // the body (the signed bytes) already received under another id is a captured delivery sent
    // again, never run; the same id and body is GitHub's redelivery. Told by the payload, whatever
    // the header names now (`Push`, an unlisted event). Other payloads can repeat byte for byte (a
    // workflow dispatched twice with the same inputs): by id only.
    const recorded = this.events.bodyIsUnique(event, body)
      ? await this.deliveries.recordDelivery(id, event, delivery.rawBody)
      : (await this.deliveries.recordFirst(id, event))
        ? 'first'
        : 'redelivery';
    if (recorded === 'repeat') {
      this.logger.info({ event, deliveryId: id }, 'code-host delivery already received (its body under another id, or another body under its id): not run');
      return { ok: true, triggers: [], duplicate: true };
    }
    const first = recorded === 'first';
    if (!first && (await this.deliveries.recordedMoreThan(id, REDELIVERY_DAYS * DAY_MS))) {
      this.logger.info({ event, deliveryId: id }, `code-host delivery received more than ${REDELIVERY_DAYS} days ago sent again: not run again`);
      return { ok: true, triggers: [], duplicate: true };
    }
    try {
      // A redelivery (of the last REDELIVERY_DAYS) does the work again, which stores nothing twice
      // (a job's update is applied as a change to its state, the auto-merge attempt is queued
      // under the delivery's key, the request is stored under the delivery's id): a stop between
      // recording the delivery and doing its work would otherwise lose it for good.
      const deliveryKey = `codehost:${id}`;
      const job = await this.#updateJob(event, body);
      if (job && this.afterJobUpdate) await this.afterJobUpdate(job, deliveryKey);
      const ownBranch = this.events.ownJobBranch(event, body);
      // Before the triggers fire: the runs and checks on the merge commit then find it recorded.
      const merged = ownBranch === undefined ? await this.#recordMergeOfPush(event, body) : undefined;
      const triggers = await this.fireTriggers.execute({ watchPath: delivery.watchPath, request: delivery.request, keep: true, deliveryKey });
      if (triggers.length > 0 && ownBranch !== undefined)
        // Once per event (RunTrigger records each agent action not run, with ownJobBranchReason).
        this.logger.info(
          { event, deliveryId: id, branch: ownBranch, triggers },
          "code-host event on a branch of the gateway's own jobs: the triggers it fired run no agent action (each job's own events would start another job, without end); their other actions run",
        );
      const mergedJob =
        triggers.length > 0 && ownBranch === undefined ? (merged ?? (await this.jobs.jobOfMergeCommit(this.events.commits(event, body)))) : null;
      if (mergedJob !== undefined && mergedJob !== null)
        // Once per event (RunTrigger records each agent action not run, with ownMergeReason).
        this.logger.info(
          { event, deliveryId: id, jobId: mergedJob, triggers },
          "code-host event of the gateway's own merge of a job's pull request: the triggers it fired run no agent action (each merged job would start another job, without end); their other actions run",
        );
      if (!first) {
        this.logger.info({ event, deliveryId: id }, 'code-host redelivery acknowledged, not run again');
        return { ok: true, triggers: [], duplicate: true };
      }
      return job === undefined ? { ok: true, triggers } : { ok: true, triggers, job: job.id };
    } catch (error) {
      if (first) await this.deliveries.forget(id).catch(() => undefined);
      throw error;
    }
  }

  #refuse(event: string | undefined, reason: string): never {
    // One line per refused request, of bounded size: the event header is unsigned, anyone's, up
    // to the header limit (~16 KB); at most 100 characters of it, marked where cut.
    this.logger.warn(
      { event: event !== undefined && event.length > 100 ? `${event.slice(0, 100)}…[cut: ${event.length} characters]` : event, reason },
      'code-host delivery refused',
    );
    throw new DomainError('unauthorized', 'Unauthorized');
  }

  /**
   * A push bringing a job's head recorded for its auto-merge into a branch (the merge, whose answer
   * may not be recorded yet) records the pushed head (the merge commit) for that job: the runs
   * and checks on it are the job's own too. Returns the job's id, or undefined.
   */
  async #recordMergeOfPush(event: string, payload: unknown): Promise<string | undefined> {
    if (event !== 'push') return undefined;
    const commits = this.events.commits(event, payload);
    if (commits.length === 0) return undefined;
    const jobId = await this.jobs.jobOfMergeCommit(commits);
    if (jobId === null) return undefined;
    await this.jobs.recordMergeCommits(jobId, commits.slice(0, 1), this.clock.now());
    return jobId;
  }

  async #updateJob(event: string, payload: unknown): Promise<Job | undefined> {
    const update = this.events.jobUpdate(event, payload);
    if (!update) return undefined;
    try {
      const job = await this.jobs.modify(update.jobId, (stored) => applyChange(stored, update.change, this.clock.now()));
      if (job) this.logger.info({ jobId: job.id, event, status: job.status }, 'job updated by code-host event');
      return job ?? undefined;
    } catch (error) {
      if (!(isDomainError(error) && error.code === 'conflict')) throw error;
      // A late or repeated event for a finished job: the job keeps its outcome; a new URL is still kept.
      const { status: _ignored, ...rest } = update.change;
      return (await this.jobs.modify(update.jobId, (stored) => applyChange(stored, rest, this.clock.now()))) ?? undefined;
    }
  }
}

/**
 * The agent actions fired by a code-host event of the gateway's own job branches do not run
 * (RunTrigger): each job's own push, pull request and runs would start another job, without
 * end. Nor those fired by an event of a commit recorded for a job's auto-merge (`jobs`: the push
 * of the merge into the base branch, the runs and checks on the merge commit): each merged job
 * would start the next. Told from the stored request (its event header and body) when the run
 * runs, so a replay or an approved action of such an event runs no agent either. Other
 * endpoints' requests, and other events, run them.
 */
export const codehostAgentGuard =
  (events: CodehostEvents, jobs?: Pick<JobRepository, 'jobOfMergeCommit'>, watchPath: string = CODEHOST_WATCH_PATH): AgentActionsGuard =>
  async (firedAt, request) => {
    if (firedAt !== watchPath) return undefined;
    const header = Object.hasOwn(request.headers, 'x-github-event') ? request.headers['x-github-event'] : undefined;
    const event = typeof header === 'string' && header !== '' ? header : undefined;
    const branch = events.ownJobBranch(event, request.body);
    if (branch !== undefined) return ownJobBranchReason(event, branch);
    const commits = jobs === undefined ? [] : events.commits(event, request.body);
    const merged = commits.length === 0 ? null : await jobs?.jobOfMergeCommit(commits);
    return merged === undefined || merged === null ? undefined : ownMergeReason(event, merged);
  };
