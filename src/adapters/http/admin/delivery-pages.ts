import { randomBytes } from 'node:crypto';
import { parseDeliveryFilter } from '../../../application/triggers/delivery-history.js';
import { isDomainError } from '../../../domain/errors/domain-error.js';
import { parseExactJson } from '../../../domain/templates/exact-json.js';
import type { ActionRun } from '../../../domain/triggers/action-run.js';
import { shownLines } from '../../../domain/triggers/approval-summary.js';
import { field, NOTICE, notFound, seeOther, showPage, signedIn, uuidParameter, type AdminRouter, type AdminTools } from './admin-http.js';
import { setFlash } from './flash.js';
import { badge, excerpt, stamp } from './present.js';

const deliveryHref = (id: string): string => `/settings/deliveries/${encodeURIComponent(id)}`;

/**
 * The replay form's nonce: one per page shown, so that the form sent twice (a double click, the
 * same page in two tabs, a resend) replays once (FireTriggers.replay's key). A form without one
 * (a page shown before) replays as before.
 */
const REPLAY_NONCE = /^[0-9a-f]{32}$/;

/** The first value of a query parameter, as text ('' when absent). */
const queryText = (value: unknown): string => (typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : '');

const outcomeOf = (run: ActionRun): string => {
  const facts = [
    typeof run.detail.exitCode === 'number' ? `exit code ${run.detail.exitCode}` : '',
    typeof run.detail.httpStatus === 'number' ? `HTTP ${run.detail.httpStatus}` : '',
    typeof run.detail.jobId === 'string' ? `job ${run.detail.jobId}` : '',
    run.error === null ? '' : shownLines(excerpt(run.error, 160)),
  ];
  return facts.filter(Boolean).join('; ') || '—';
};

/**
 * The stored request text, indented when it is JSON (it is stored as JSON text), its numbers as
 * sent (parseExactJson); its bidi, zero-width and other unshown characters escaped (shownLines),
 * as the approvals page shows them, so that no part of it is reordered or hidden.
 */
const readable = (stored: string): string => {
  try {
    return shownLines(JSON.stringify(parseExactJson(stored), null, 2));
  } catch {
    return shownLines(stored);
  }
};

/** The delivery log: the list (filters, pages), one delivery with its runs, and its replay. */
export const registerDeliveryPages = (router: AdminRouter, tools: AdminTools): void => {
  const { deliveries, fireTriggers } = tools.deps;

  router.get('/settings/deliveries', async (ctx) => {
    const raw = {
      path: queryText(ctx.query.path),
      trigger: queryText(ctx.query.trigger),
      before: queryText(ctx.query.before),
      before_id: queryText(ctx.query.before_id),
    };
    const filter = parseDeliveryFilter(raw); // a malformed `before` or `before_id` is a 400 page
    const now = new Date();
    const found = await deliveries.list(filter);
    const last = found.at(-1);
    // The next page starts after the last row shown, by its time and id: the rows received in the
    // same millisecond as that one are on it too (a time alone would skip them).
    const next =
      last !== undefined && found.length === filter.limit
        ? `/settings/deliveries?${new URLSearchParams({
            ...(raw.path ? { path: raw.path } : {}),
            ...(raw.trigger ? { trigger: raw.trigger } : {}),
            before: last.receivedAt.toISOString(),
            before_id: last.id,
          })}`
        : null;
    showPage(ctx, tools, 'deliveries', 'Deliveries', 'deliveries', {
      filter: raw,
      filtered: raw.path !== '' || raw.trigger !== '' || raw.before !== '',
      next,
      deliveries: found.map((delivery) => ({
        id: delivery.id,
        href: deliveryHref(delivery.id),
        receivedAt: stamp(delivery.receivedAt, now),
        path: delivery.watchPath,
        triggers: delivery.triggers.join(', ') || '—',
        replayOf: delivery.replayOf === null ? null : { id: delivery.replayOf, href: deliveryHref(delivery.replayOf) },
      })),
    });
  });

  router.get('/settings/deliveries/:id', async (ctx) => {
    const id = uuidParameter(ctx, 0);
    const delivery =
      id === undefined
        ? null
        : await deliveries.show(id).catch((error: unknown) => (isDomainError(error) && error.code === 'not_found' ? null : Promise.reject(error)));
    if (delivery === null)
      return notFound(ctx, tools, 'No such delivery: it was never stored, or the retention period removed it.', {
        href: '/settings/deliveries',
        label: 'Back to the deliveries',
      });
    const { request } = delivery;
    const now = new Date();
    showPage(ctx, tools, 'delivery', 'Delivery', 'deliveries', {
      id: request.id,
      path: request.watchPath,
      receivedAt: stamp(request.receivedAt, now),
      replayOf: request.replayOf === null ? null : { id: request.replayOf, href: deliveryHref(request.replayOf) },
      triggers: request.triggers.join(', '),
      runs: delivery.runs.map((run) => ({
        trigger: run.trigger,
        href: `/settings/runs/${encodeURIComponent(run.runId)}`,
        actions: run.actions.map((action) => ({
          href: `/settings/runs/${encodeURIComponent(run.runId)}#action-${action.actionIndex}`,
          label: `${action.actionIndex} (${action.type})`,
          status: badge(action.status),
          outcome: outcomeOf(action),
        })),
      })),
      request: readable(request.request),
      nonce: randomBytes(16).toString('hex'),
    });
  });

  router.post('/settings/deliveries/:id/replay', tools.form, async (ctx) => {
    const id = uuidParameter(ctx, 0);
    if (id === undefined) return notFound(ctx, tools, 'No such delivery.', { href: '/settings/deliveries', label: 'Back to the deliveries' });
    const secret = signedIn(ctx).session.csrfToken;
    try {
      const nonce = field(ctx, 'nonce');
      const outcome = await fireTriggers.replay(id, REPLAY_NONCE.test(nonce) ? nonce : undefined);
      if (outcome.again === true && outcome.requestId !== null) {
        setFlash(ctx, NOTICE, secret, {
          kind: 'notice',
          text: `Replayed once already from this page (the form was sent again): fired ${outcome.fired.join(', ')}.`,
        });
        return seeOther(ctx, deliveryHref(outcome.requestId));
      }
      const why = outcome.skippedWhy.map((skip) => `${skip.trigger} (${skip.reason})`);
      const skipped = why.length === 0 ? '' : ` Skipped: ${why.join(', ')}.`;
      if (outcome.requestId === null) {
        setFlash(ctx, NOTICE, secret, { kind: 'error', text: `Nothing replayed: none of its triggers would fire for it now.${skipped}` });
        return seeOther(ctx, deliveryHref(id));
      }
      setFlash(ctx, NOTICE, secret, { kind: 'notice', text: `Replayed: fired ${outcome.fired.join(', ')}.${skipped}` });
      seeOther(ctx, deliveryHref(outcome.requestId));
    } catch (error) {
      if (!isDomainError(error) || error.code !== 'not_found') throw error;
      notFound(ctx, tools, 'No such delivery: it was never stored, or the retention period removed it.', {
        href: '/settings/deliveries',
        label: 'Back to the deliveries',
      });
    }
  });
};
