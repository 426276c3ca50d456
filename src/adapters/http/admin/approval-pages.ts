import { effectiveStatus } from '../../../domain/approvals/approval.js';
import { whyNothingRuns } from '../../../application/approvals/decide-approval.js';
import { isDomainError } from '../../../domain/errors/domain-error.js';
import { NOTICE, notFound, seeOther, showPage, signedIn, uuidParameter, type AdminRouter, type AdminTools } from './admin-http.js';
import { setFlash } from './flash.js';
import { badge, duration, maybeStamp, stamp } from './present.js';

/** Who decided, on the record, for a decision made in the admin UI (one admin password, no user names). */
export const ADMIN_UI = 'admin UI';

/** Approvals: what waits for a decision (approve, deny), and the recent decisions. */
export const registerApprovalPages = (router: AdminRouter, tools: AdminTools): void => {
  const { approvals, decideApproval, approvalTimeoutMs } = tools.deps;

  router.get('/settings/approvals', async (ctx) => {
    const now = new Date();
    const [pending, recent] = await Promise.all([approvals.list({ status: 'pending', limit: 100 }), approvals.list({ limit: 200 })]);
    showPage(ctx, tools, 'approvals', 'Approvals', 'approvals', {
      timeout: duration(approvalTimeoutMs),
      pending: pending
        .filter((approval) => effectiveStatus(approval, now) === 'pending')
        .reverse()
        .map((approval) => ({
          id: approval.id,
          trigger: approval.trigger,
          actionIndex: approval.actionIndex,
          actionType: approval.actionType,
          watchPath: approval.watchPath,
          summary: approval.summary,
          createdAt: stamp(approval.createdAt, now),
          expiresAt: stamp(approval.expiresAt, now),
          deliveryHref: approval.requestId === null ? null : `/settings/deliveries/${approval.requestId}`,
        })),
      decided: recent
        .filter((approval) => effectiveStatus(approval, now) !== 'pending')
        .slice(0, 50)
        .map((approval) => ({
          trigger: approval.trigger,
          actionIndex: approval.actionIndex,
          actionType: approval.actionType,
          runHref: `/settings/runs/${approval.runId}#action-${approval.actionIndex}`,
          status: badge(effectiveStatus(approval, now)),
          decidedBy: approval.decidedBy ?? '—',
          createdAt: stamp(approval.createdAt, now),
          decidedAt: maybeStamp(approval.decidedAt ?? (effectiveStatus(approval, now) === 'expired' ? approval.expiresAt : null), now),
        })),
    });
  });

  for (const [verb, decision] of [
    ['approve', 'approved'],
    ['deny', 'denied'],
  ] as const) {
    router.post(`/settings/approvals/:id/${verb}`, tools.form, async (ctx) => {
      const id = uuidParameter(ctx, 0);
      if (id === undefined) return notFound(ctx, tools, 'No such approval.', { href: '/settings/approvals', label: 'Back to the approvals' });
      const secret = signedIn(ctx).session.csrfToken;
      try {
        const decided = await decideApproval.execute({ id, decision, by: ADMIN_UI });
        const why = whyNothingRuns(decided);
        const text =
          decision === 'denied'
            ? `Denied: ${decided.trigger}, action ${decided.actionIndex} and those after it will not run.`
            : why === undefined
              ? `Approved: ${decided.trigger}, action ${decided.actionIndex} runs now.`
              : `Approved, but ${why}: nothing runs.`;
        setFlash(ctx, NOTICE, secret, { kind: 'notice', text });
      } catch (error) {
        if (!isDomainError(error)) throw error;
        if (error.code === 'not_found') return notFound(ctx, tools, 'No such approval.', { href: '/settings/approvals', label: 'Back to the approvals' });
        if (error.code !== 'conflict') throw error;
        setFlash(ctx, NOTICE, secret, { kind: 'error', text: error.message });
      }
      seeOther(ctx, '/settings/approvals');
    });
  }
};
