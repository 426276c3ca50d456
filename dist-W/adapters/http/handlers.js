import { watchPathsOf } from '../../domain/auth/route-policy.js';
import { requestSnapshot } from './api-router.js';
import { respondWithError } from './middleware/error-responder.js';
const CODEHOST_WATCH_PATH = '/codehost/webhook';
/** The public shape of a job (GET /api/jobs/status). */
const jobView = (job) => ({
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
const header = (value) => (Array.isArray(value) ? value[0] : value);
/** The request's headers (Node gives them lower-case), one value each. */
const headersOf = (ctx) => Object.fromEntries(Object.entries(ctx.req.headers).map(([name, value]) => [name, header(value)]));
const channelRoutes = (deps, kind) => deps.routes.filter((route) => route.channel !== undefined && route.auth === (kind === 'webhook' ? 'platform-secret' : 'api-key'));
/**
 * The checks of the platform webhooks that need only headers, run before the body is read
 * (see ApiRouter): each chat channel's (its secret header, or its signature's presence, form
 * and age), a code-host signature's presence and shape.
 */
export const apiChecksBeforeBody = (deps) => ({
    ...Object.fromEntries(channelRoutes(deps, 'webhook').map((route) => [
        route.name,
        async (ctx, next) => {
            await deps.receiveMessagingUpdate.authorize(route.channel, headersOf(ctx));
            return next();
        },
    ])),
    'codehost-webhook': (ctx, next) => {
        deps.receiveCodehostEvent.authorize(header(ctx.req.headers['x-hub-signature-256']), header(ctx.req.headers['x-github-event']));
        return next();
    },
});
/** The handlers of the `/api` endpoints, by route name (see domain/auth/routePolicy). */
export const apiHandlers = (deps) => ({
    ping: (ctx) => {
        ctx.body = { message: 'Pong!' };
    },
    'create-job': (ctx) => {
        // A body that can create no job is refused before anything asynchronous starts.
        const problem = deps.createJob.problemWith(ctx.request.body);
        if (problem !== undefined)
            return respondWithError(ctx, problem);
        return deps.createJob
            .execute({ body: ctx.request.body, idempotencyKey: ctx.req.headers['idempotency-key'], apiKeyId: ctx.state.apiKeyId })
            .then((created) => {
            if (created.replayed)
                ctx.set('idempotent-replayed', 'true');
            ctx.body = { job_id: created.jobId, branch: created.branch, status: created.status };
        });
    },
    'job-status': async (ctx) => {
        const result = await deps.getJobStatus.execute(ctx.query);
        ctx.body = result.kind === 'one' ? jobView(result.job) : { jobs: result.jobs.map(jobView) };
    },
    webhook: (ctx) => {
        ctx.body = { ok: true, triggers: ctx.state.firedTriggers ?? [] };
    },
    ...Object.fromEntries(channelRoutes(deps, 'register').map((route) => [route.name, registerHandler(deps, route.channel)])),
    ...Object.fromEntries(channelRoutes(deps, 'webhook').map((route) => [route.name, webhookHandler(deps, route)])),
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
            request: requestSnapshot(ctx, deps.credentialHeaders),
        });
    },
});
const registerHandler = (deps, channel) => async (ctx) => {
    const info = await deps.registerMessagingWebhook.execute(channel, ctx.request.body);
    ctx.body = { success: true, result: { url: info.url, has_custom_certificate: info.hasCustomCertificate, pending_update_count: info.pendingUpdateCount } };
};
/** A channel's webhook: `{ok: true}`, or the answer to the platform's handshake. */
const webhookHandler = (deps, route) => {
    const [watchPath, ...sameEndpointAs] = watchPathsOf(route);
    return async (ctx) => {
        const answer = await deps.receiveMessagingUpdate.execute({
            channel: route.channel,
            request: {
                headers: headersOf(ctx),
                // koa-bodyparser keeps the body as text decoded from UTF-8: encoded back, it is the exact
                // bytes of any valid UTF-8 body (JSON is); one that is not fails a signature, as it should.
                rawBody: Buffer.from(ctx.request.rawBody ?? '', 'utf8'),
                body: ctx.request.body,
            },
            triggers: { watchPath, sameEndpointAs, request: () => requestSnapshot(ctx, deps.credentialHeaders) },
        });
        ctx.body = answer.kind === 'handshake' ? answer.body : { ok: true };
    };
};
//# sourceMappingURL=handlers.js.map