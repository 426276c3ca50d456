import type { Middleware } from 'koa';
import type { CreateJob } from '../../application/CreateJob.js';
import type { GetJobStatus } from '../../application/GetJobStatus.js';
import type { Job } from '../../domain/jobs/Job.js';
import type { ReceiveCodehostEvent } from '../../application/ReceiveCodehostEvent.js';
import type { ReceiveMessagingUpdate } from '../../application/ReceiveMessagingUpdate.js';
import type { RegisterMessagingWebhook } from '../../application/RegisterMessagingWebhook.js';
import { API_ROUTES, watchPathOf } from '../../domain/auth/routePolicy.js';
import { requestSnapshot, type RouteHandler } from './ApiRouter.js';

export interface HandlerDependencies {
  readonly createJob: CreateJob;
  readonly getJobStatus: GetJobStatus;
  readonly receiveCodehostEvent: ReceiveCodehostEvent;
  readonly registerMessagingWebhook: RegisterMessagingWebhook;
  readonly receiveMessagingUpdate: ReceiveMessagingUpdate;
}

const watchPathNamed = (name: string): string => watchPathOf(API_ROUTES.find((route) => route.name === name)!);
const CODEHOST_WATCH_PATH = watchPathNamed('codehost-webhook');
const MESSAGING_WATCH_PATH = watchPathNamed('messaging-webhook');

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

/**
 * The checks of the platform webhooks that need only headers, run before the body is read
 * (see ApiRouter): the chat platform's secret header, a code-host signature's presence and shape.
 */
export const apiChecksBeforeBody = (deps: HandlerDependencies): Record<string, Middleware> => ({
  'messaging-webhook': async (ctx, next) => {
    await deps.receiveMessagingUpdate.authorize(header(ctx.req.headers['x-telegram-bot-api-secret-token']));
    return next();
  },
  'codehost-webhook': (ctx, next) => {
    deps.receiveCodehostEvent.authorize(header(ctx.req.headers['x-hub-signature-256']), header(ctx.req.headers['x-github-event']));
    return next();
  },
});

/** The handlers of the `/api` endpoints, by route name (see domain/auth/routePolicy). */
export const apiHandlers = (deps: HandlerDependencies): Record<string, RouteHandler> => ({
  ping: (ctx) => {
    ctx.body = { message: 'Pong!' };
  },
  'create-job': async (ctx) => {
    const created = await deps.createJob.execute(ctx.request.body);
    ctx.body = { job_id: created.jobId, branch: created.branch, status: created.status };
  },
  'job-status': async (ctx) => {
    const result = await deps.getJobStatus.execute(ctx.query);
    ctx.body = result.kind === 'one' ? jobView(result.job) : { jobs: result.jobs.map(jobView) };
  },
  webhook: (ctx) => {
    ctx.body = { ok: true, triggers: (ctx.state.firedTriggers as string[] | undefined) ?? [] };
  },
  'messaging-register': async (ctx) => {
    const info = await deps.registerMessagingWebhook.execute(ctx.request.body);
    ctx.body = { success: true, result: { url: info.url, has_custom_certificate: info.hasCustomCertificate, pending_update_count: info.pendingUpdateCount } };
  },
  'messaging-webhook': async (ctx) => {
    ctx.body = await deps.receiveMessagingUpdate.execute({
      secret: header(ctx.req.headers['x-telegram-bot-api-secret-token']),
      update: ctx.request.body,
      watchPath: MESSAGING_WATCH_PATH,
      request: () => requestSnapshot(ctx),
    });
  },
  'codehost-webhook': async (ctx) => {
    ctx.body = await deps.receiveCodehostEvent.execute({
      // koa-bodyparser keeps the body as text decoded from UTF-8: encoded back, it is the exact
      // bytes of any valid UTF-8 body (all GitHub sends); a body that is not valid UTF-8
      // comes back different and fails the signature, as it should.
      rawBody: Buffer.from(ctx.request.rawBody ?? '', 'utf8'),
      signature: header(ctx.req.headers['x-hub-signature-256']),
      event: header(ctx.req.headers['x-github-event']),
      deliveryId: header(ctx.req.headers['x-github-delivery']),
      watchPath: CODEHOST_WATCH_PATH,
      request: requestSnapshot(ctx),
    });
  },
});
