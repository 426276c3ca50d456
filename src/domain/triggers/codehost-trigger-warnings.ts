import type { Trigger } from './trigger.js';

/** The watch path of the code-host webhook (POST /api/codehost/webhook). */
export const CODEHOST_WATCH_PATH = '/codehost/webhook';

/**
 * Why an agent action fired by a code-host event of the gateway's own job branch `branch` does
 * not run: the job's own push, pull request and runs would each start another job, without end.
 */
export const ownJobBranchReason = (event: string | undefined, branch: string): string =>
  `not run: a code-host event${event === undefined ? '' : ` (${event})`} on ${branch}, a branch of the gateway's own jobs, runs no agent action (each job's own push, pull request and runs would start another job, without end); its other actions run`;

/**
 * Why an agent action fired by a code-host event of a commit of the gateway's own merge of job
 * `jobId`'s pull request (AUTO_MERGE: the push of the merge, the runs and checks on the merge
 * commit) does not run: each merged job would start another job, whose merge would start the next.
 */
export const ownMergeReason = (event: string | undefined, jobId: string): string =>
  `not run: a code-host event${event === undefined ? '' : ` (${event})`} of the gateway's own merge of the pull request of job ${jobId} (AUTO_MERGE) runs no agent action (each merged job would start another job, without end); its other actions run`;

/**
 * Warnings (not problems: the file is valid) about enabled triggers on the code-host endpoint
 * with an agent action and no `when`: every event of the repository (each push, pull request,
 * run, check, comment…) starts a job. The events of the jobs' own branches run no agent action
 * (ownJobBranchReason), so a job does not start another one, but each push to main or comment
 * does; a trigger meant for some events says which (docs/triggers.md, "When triggers fire").
 */
export const codehostTriggerWarnings = (triggers: readonly Trigger[]): string[] =>
  triggers.flatMap((trigger) =>
    trigger.enabled &&
    trigger.watchPath === CODEHOST_WATCH_PATH &&
    (trigger.when ?? []).length === 0 &&
    trigger.actions.some((action) => action.type === 'agent')
      ? [
          `trigger "${trigger.name}" watches the code-host endpoint ${CODEHOST_WATCH_PATH} with an agent action and no "when": every event of the repository (each push, pull request, workflow run, check, comment) starts a job (add e.g. "when": {"headers.x-github-event": {"equals": "issues"}, "body.action": {"equals": "opened"}})`,
        ]
      : [],
  );
