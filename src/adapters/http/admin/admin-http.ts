import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { AdminAuthentication } from '../../../application/auth/admin-authentication.js';
import type { AdminOverview } from '../../../application/operations/admin-overview.js';
import type { KeyAdministration } from '../../../application/auth/api-key-administration.js';
import type { CancelJob } from '../../../application/jobs/cancel-job.js';
import type { ChatAgent } from '../../../application/messaging/chat-agent.js';
import type { DecideApproval } from '../../../application/approvals/decide-approval.js';
import type { ApprovalStore } from '../../../ports/approval-store.js';
import type { DeliveryHistory } from '../../../application/triggers/delivery-history.js';
import type { FireTriggers } from '../../../application/triggers/fire-triggers.js';
import { DomainError } from '../../../domain/errors/domain-error.js';
import { isUuid } from '../../../domain/ids/is-uuid.js';
import type { AdminSession } from '../../../ports/admin-store.js';
import type { Logger } from '../../../ports/logger.js';
import { formField, type Form } from '../middleware/form-body.js';
import type { AdminViews, Flash, Frame, Section, ViewName } from './admin-views.js';
import { takeFlash, type FlashCookie } from './flash.js';

export interface AdminUiDependencies {
  readonly auth: AdminAuthentication;
  readonly keys: KeyAdministration;
  readonly overview: AdminOverview;
  readonly cancelJob: CancelJob;
  readonly chat: ChatAgent;
  /** The delivery log's pages. */
  readonly deliveries: DeliveryHistory;
  /** Replays a delivery. */
  readonly fireTriggers: Pick<FireTriggers, 'replay'>;
  /** Actions waiting for a person, and the decisions. */
  readonly approvals: Pick<ApprovalStore, 'list'>;
  readonly decideApproval: Pick<DecideApproval, 'execute'>;
  /** How long an action waits for a decision (APPROVAL_TIMEOUT_SECONDS), said on the page. */
  readonly approvalTimeoutMs: number;
  /** For failures a page shows without failing (a web chat message the AI could not answer). */
  readonly logger: Logger;
}

/** The signed-in admin of a request (set by the session check). */
export interface SignedIn {
  readonly session: AdminSession;
  /** The session cookie's value. */
  readonly token: string;
}

/** What every page module gets. */
export interface AdminTools {
  readonly deps: AdminUiDependencies;
  readonly views: AdminViews;
  /** Parses the form and checks its CSRF token: put before every POST handler. */
  readonly form: Middleware;
}

export type AdminRouter = Router;

/** Notices and errors for the next page of this session (Post/Redirect/Get). */
export const NOTICE: FlashCookie = { name: 'agw_flash', path: '/settings' };

export const signedIn = (ctx: Context): SignedIn => ctx.state.admin as SignedIn;

/** The parsed form of a POST (see the `form` tool). */
export const formOf = (ctx: Context): Form => ctx.request.body as Form;

export const field = (ctx: Context, name: string): string => formField(formOf(ctx), name) ?? '';

export const sendPage = (ctx: Context, status: number, html: string): void => {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
};

/**
 * Post/Redirect/Get: every form that was taken ends in a 303 to the page that shows the outcome,
 * but a key's creation, whose answer shows the key (it must not travel in a cookie: key-pages.ts).
 */
export const seeOther = (ctx: Context, location: string): void => {
  ctx.status = 303;
  ctx.redirect(location);
};

/** The frame of a signed-in page, with the notice left by the previous form, if any. */
export const frame = (ctx: Context, title: string, section: Section | undefined, extra: Partial<Frame> = {}): Frame => {
  const { session } = signedIn(ctx);
  const flash = takeFlash(ctx, NOTICE, session.csrfToken) as Flash | undefined;
  const valid = flash !== undefined && (flash.kind === 'notice' || flash.kind === 'error') && typeof flash.text === 'string';
  return { title, section, csrf: session.csrfToken, ...(valid ? { flash } : {}), ...extra };
};

/** Renders a signed-in page with status 200. */
export const showPage = (
  ctx: Context,
  tools: AdminTools,
  view: ViewName,
  title: string,
  section: Section | undefined,
  model: object = {},
  extra: Partial<Frame> = {},
): void => sendPage(ctx, 200, tools.views.page(view, frame(ctx, title, section, extra), { ...model, csrf: signedIn(ctx).session.csrfToken }));

/**
 * The `index`-th parameter of the matched route, percent-decoded from the raw path (the router
 * would keep a malformed encoding as it is): a malformed one is the caller's mistake (400).
 */
export const pathParameter = (ctx: Context, index: number): string => {
  const raw = (ctx.captures as string[] | undefined)?.[index] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new DomainError('invalid_input', 'The address has a malformed percent-encoding');
  }
};

/** A UUID path parameter in lower case, or undefined when it is none (the page then answers 404). */
export const uuidParameter = (ctx: Context, index: number): string | undefined => {
  const raw = (ctx.captures as string[] | undefined)?.[index] ?? '';
  return isUuid(raw) ? raw.toLowerCase() : undefined;
};

/** A 404 page inside the signed-in frame. */
export const notFound = (ctx: Context, tools: AdminTools, what: string, back: { href: string; label: string }): void =>
  sendPage(ctx, 404, tools.views.page('error', frame(ctx, 'Not found', undefined), { message: what, back }));
