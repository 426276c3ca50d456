import type { Context, Middleware } from 'koa';
import type { IncomingMessage } from 'node:http';
import type { CreateJobOnce } from '../../application/jobs/create-job-once.js';
import type { GetJobStatus } from '../../application/jobs/get-job-status.js';
import type { Job } from '../../domain/jobs/job.js';
import type { ReceiveCodehostEvent } from '../../application/codehost/receive-codehost-event.js';
import type { ReceiveMessagingUpdate } from '../../application/messaging/receive-messaging-update.js';
import type { RegisterMessagingWebhook } from '../../application/messaging/register-messaging-webhook.js';
import { watchPathsOf, type ApiRoute } from '../../domain/auth/route-policy.js';
import { DomainError, isDomainError } from '../../domain/errors/domain-error.js';
import { CODEHOST_WATCH_PATH } from '../../domain/triggers/codehost-trigger-warnings.js';
import { requestSnapshot, type RouteHandler } from './api-router.js';
import { rawBodyOf } from './middleware/body-stream.js';
import { respondWithError } from './middleware/error-responder.js';
import { parserOf } from './middleware/signed-body.js';

export interface HandlerDependencies {
  /** The route table the router is built from: the channels' endpoints get their handlers from it. */
  readonly routes: readonly ApiRoute[];
  /** Headers that carry the channels' credentials, kept out of trigger snapshots. */
  readonly credentialHeaders: readonly string[];
  readonly createJob: CreateJobOnce;
  readonly getJobStatus: GetJobStatus;
  readonly receiveCodehostEvent: ReceiveCodehostEvent;
  readonly registerMessagingWebhook: RegisterMessagingWebhook;
  readonly receiveMessagingUpdate: ReceiveMessagingUpdate;
}

/** The public shape of a job (GET /api/jobs/status). */
const jobView = (job: Job) => ({
  job_id: job.id,
  status: job.status,
  branch: job.branch,
  pr_url: job.prUrl,
  run_url: job.runUrl,
  summary: job.summary,
  error: job.error,
  source: job.source.kind,
  llm_provider: job.llmProvider,
  llm_model: job.llmModel,
  created_at: job.createdAt.toISOString(),
  updated_at: job.updatedAt.toISOString(),
});

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The request's headers (Node gives them lower-case), one value each. */
const headersOf = (ctx: Context): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(ctx.req.headers).map(([name, value]) => [name, header(value)]));

const channelRoutes = (deps: HandlerDependencies, kind: 'webhook' | 'register'): Array<ApiRoute & { readonly channel: string }> =>
  deps.routes.filter(
    (route): route is ApiRoute & { channel: string } => route.channel !== undefined && route.auth === (kind === 'webhook' ? 'platform-secret' : 'api-key'),
  );

/**
 * The checks of the platform webhooks that need only headers, run before the body is read
 * (see ApiRouter): each chat channel's (its secret header, or its signature's presence, form
 * and age), a code-host signature's presence and shape.
 */
export const apiChecksBeforeBody = (deps: HandlerDependencies): Record<string, Middleware> => ({
  ...Object.fromEntries(
    channelRoutes(deps, 'webhook').map((route): [string, Middleware] => [
      route.name,
      async (ctx, next) => {
        await deps.receiveMessagingUpdate.authorize(route.channel, headersOf(ctx));
        return next();
      },
    ]),
  ),
  'codehost-webhook': (ctx, next) => {
    deps.receiveCodehostEvent.authorize(header(ctx.req.headers['x-hub-signature-256']), header(ctx.req.headers['x-github-event']));
    return next();
  },
});

/**
 * The `Idempotency-Key` header as sent: Node joins a repeated header of a name it does not know
 * into one string ("a, b"), which would pass for one key; sent twice, it is both values.
 */
const idempotencyKeyOf = (req: IncomingMessage): string | string[] | undefined => {
  const joined = req.headers['idempotency-key'];
  if (joined === undefined) return undefined;
  const sent: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].toLowerCase() === 'idempotency-key') sent.push(req.rawHeaders[i + 1]);
  return sent.length > 1 ? sent : joined;
};

/** The handlers of the `/api` endpoints, by route name (see domain/auth/routePolicy). */
/**
 * SPEC 7: create-job's internal failures are `Failed to create job` — also one of the
 * idempotency claim or of storing the request for a trigger, which are not the job's own
 * creation. A 4xx, 501 or SPEC 7 text passes as it is; the cause stays for the log.
 */
export const rethrowAsFailedToCreateJob = (error: unknown): never => {
  if (isDomainError(error) && (error.code !== 'internal' || error.message === 'Failed to create job')) throw error;
  throw new DomainError('internal', 'Failed to create job', { cause: isDomainError(error) ? (error.cause ?? error) : error });
};

export const apiHandlers = (deps: HandlerDependencies): Record<string, RouteHandler> => ({
  ping: (ctx) => {
    ctx.body = { message: 'Pong!' };
  },
  'create-job': (ctx) => {
    // A body that can create no job is refused before anything asynchronous starts.
    const problem = deps.createJob.problemWith(ctx.request.body);
    if (problem !== undefined) return respondWithError(ctx, problem);
    return deps.createJob
      .execute({ body: ctx.request.body, idempotencyKey: idempotencyKeyOf(ctx.req), apiKeyId: ctx.state.apiKeyId as string })
      .then((created) => {
        if (created.replayed) ctx.set('idempotent-replayed', 'true');
        ctx.body = { job_id: created.jobId, branch: created.branch, status: created.status };
      }, rethrowAsFailedToCreateJob);
  },
  'job-status': async (ctx) => {
    const result = await deps.getJobStatus.execute(ctx.query);
    // `next_before` only when another page follows: a last (or only) page is answered as before paging.
    ctx.body =
      result.kind === 'one' ? jobView(result.job) : { jobs: result.jobs.map(jobView), ...(result.nextBefore !== null && { next_before: result.nextBefore }) };
  },
  webhook: (ctx) => {
    ctx.body = { ok: true, triggers: (ctx.state.firedTriggers as string[] | undefined) ?? [] };
  },
  ...Object.fromEntries(channelRoutes(deps, 'register').map((route): [string, RouteHandler] => [route.name, registerHandler(deps, route.channel)])),
  ...Object.fromEntries(channelRoutes(deps, 'webhook').map((route): [string, RouteHandler] => [route.name, webhookHandler(deps, route)])),
  'codehost-webhook': async (ctx) => {
    ctx.body = await deps.receiveCodehostEvent.execute({
      // The bytes as received: the signature is checked over them, whatever they are; they are
      // parsed only once it is verified (signedBody).
      rawBody: rawBodyOf(ctx),
      signature: header(ctx.req.headers['x-hub-signature-256']),
      event: header(ctx.req.headers['x-github-event']),
      deliveryId: header(ctx.req.headers['x-github-delivery']),
      watchPath: CODEHOST_WATCH_PATH,
      parseBody: parserOf(ctx),
      request: () => requestSnapshot(ctx, deps.credentialHeaders),
    });
  },
});

const registerHandler =
  (deps: HandlerDependencies, channel: string): RouteHandler =>
  async (ctx) => {
    const info = await deps.registerMessagingWebhook.execute(channel, ctx.request.body);
    ctx.body = { success: true, result: { url: info.url, has_custom_certificate: info.hasCustomCertificate, pending_update_count: info.pendingUpdateCount } };
  };

/** A channel's webhook: `{ok: true}`, or the answer to the platform's handshake. */
const webhookHandler = (deps: HandlerDependencies, route: ApiRoute & { readonly channel: string }): RouteHandler => {
  const [watchPath, ...sameEndpointAs] = watchPathsOf(route);
  return async (ctx) => {
    const answer = await deps.receiveMessagingUpdate.execute({
      channel: route.channel,
      request: {
        headers: headersOf(ctx),
        // The bytes as received, for the channel's signature (see codehost-webhook).
        rawBody: rawBodyOf(ctx),
      },
      parseBody: parserOf(ctx),
      // Taken once the use case parsed the body (the thunk), without the channel's credential fields.
      triggers: { watchPath, sameEndpointAs, request: () => requestSnapshot(ctx, deps.credentialHeaders, route.credentialFields) },
    });
    ctx.body = answer.kind === 'handshake' ? answer.body : { ok: true };
  };
};
