import type { CreateJob } from '../../application/CreateJob.js';
import type { RouteHandler } from './ApiRouter.js';

export interface HandlerDependencies {
  readonly createJob: CreateJob;
}

/** The handlers of the `/api` endpoints, by route name (see domain/auth/routePolicy). */
export const apiHandlers = (deps: HandlerDependencies): Record<string, RouteHandler> => ({
  ping: (ctx) => {
    ctx.body = { message: 'Pong!' };
  },
  'create-job': async (ctx) => {
    const created = await deps.createJob.execute(ctx.request.body);
    ctx.body = { job_id: created.jobId, branch: created.branch, status: created.status };
  },
});
