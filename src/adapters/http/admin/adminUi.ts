import type { Context, Middleware } from 'koa';
import type { AdminAuthentication } from '../../../application/AdminAuthentication.js';
import type { AdminOverview } from '../../../application/AdminOverview.js';
import type { KeyAdministration } from '../../../application/ApiKeyAdministration.js';
import type { CancelJob } from '../../../application/CancelJob.js';
import type { ChatAgent } from '../../../application/ChatAgent.js';
import { chatPage, healthPage, jobPage, jobsPage, messagingPage, triggersPage } from './pages.js';
import { DomainError, isDomainError } from '../../../domain/errors/DomainError.js';
import type { AdminSession } from '../../../ports/AdminStore.js';
import { answerFor } from '../errorStatus.js';
import { formBody, formField, type Form } from '../middleware/formBody.js';
import { esc, page, UI_SCRIPT } from './html.js';

const COOKIE = 'agw_session';
const FORM_LIMIT = 16 * 1024;

export interface AdminUiDependencies {
  readonly auth: AdminAuthentication;
  readonly keys: KeyAdministration;
  readonly overview: AdminOverview;
  readonly cancelJob: CancelJob;
  readonly chat: ChatAgent;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The web chat's thread: one per admin session (a new login starts a new one). */
const webThread = (token: string | undefined): string => `web:${(token ?? '').slice(0, 16)}`;

const parseForm = formBody(FORM_LIMIT);

/** The request's form (koa-bodyparser): 413 over FORM_LIMIT, 415 for another content type. */
const readForm = async (ctx: Context): Promise<Form> => {
  await parseForm(ctx, () => Promise.resolve());
  return ctx.request.body as Form;
};

/** A path segment, percent-decoded; a malformed percent-encoding is the caller's mistake. */
const pathSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new DomainError('invalid_input', 'The address has a malformed percent-encoding');
  }
};

const send = (ctx: Context, status: number, html: string): void => {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
};

const redirect = (ctx: Context, to: string): void => {
  ctx.status = 303;
  ctx.redirect(to);
};

const loginForm = (error?: string) =>
  `${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/settings/login"><label for="password">Admin password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
<p><button type="submit">Log in</button></p></form>`;

const keysPage = async (keys: KeyAdministration, session: AdminSession, created?: { name: string; key: string }) => {
  const rows = (await keys.list())
    .map(
      (k) => `<tr><td>${esc(k.name)}</td><td><code>${esc(k.prefix)}…</code></td><td>${esc(k.createdAt.toISOString())}</td>
<td>${esc(k.lastUsedAt?.toISOString() ?? 'never')}</td><td><a href="/settings/keys/${esc(k.id)}/revoke">Revoke<span class="visually-hidden"> ${esc(k.name)}</span></a></td></tr>`,
    )
    .join('');
  const shown = created
    ? `<div class="notice" role="status"><p>Key <strong>${esc(created.name)}</strong> created. Copy it now: it is not shown again.</p>
<code class="key" id="new-key">${esc(created.key)}</code><p><button type="button" data-copy="new-key" hidden>Copy</button></p></div>`
    : '';
  return `${shown}<h2>Keys</h2>${
    rows ? `<table><thead><tr><th>Name</th><th>Prefix</th><th>Created</th><th>Last used</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : '<p>No API keys yet.</p>'
  }
<h2>Create a key</h2><form method="post" action="/settings/keys"><input type="hidden" name="csrf" value="${esc(session.csrfToken)}">
<label for="name">Name</label><input id="name" name="name" type="text" required maxlength="100">
<p><button type="submit">Create key</button></p></form>`;
};

/**
 * The admin UI at /settings: closed until an admin password exists, then nothing of it —
 * pages, static files, actions — without a session. Sessions are HttpOnly, SameSite=Strict
 * cookies (Secure over HTTPS); every form carries the session's CSRF token; logins are
 * rate-limited per client. Every failure — a malformed path or form, a form too large or of
 * another type — is answered as an admin page with the status of the one error table.
 */
export const adminUi = (deps: AdminUiDependencies): Middleware => async (ctx, next) => {
  if (ctx.path !== '/settings' && !ctx.path.startsWith('/settings/')) return next();
  ctx.state.routeName = 'settings';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; form-action 'self'; frame-ancestors 'none'");
  ctx.set('Referrer-Policy', 'no-referrer');
  try {
    await handle(ctx, deps);
  } catch (error) {
    const answer = answerFor(error);
    if (answer.logged !== undefined) ctx.state.error = answer.logged;
    send(ctx, answer.status, page(ERROR_TITLES[answer.status] ?? 'Error', `<p class="error" role="alert">${esc(answer.message)}</p><p><a href="/settings">Back to the admin pages</a></p>`));
  }
};

/** Titles of the error pages, by status (by the one error table, see answerFor). */
const ERROR_TITLES: Readonly<Record<number, string>> = {
  400: 'Bad request',
  404: 'Not found',
  413: 'Form too large',
  415: 'Unsupported form',
  429: 'Too many attempts',
  500: 'Something went wrong',
};

const handle = async (ctx: Context, deps: AdminUiDependencies): Promise<void> => {
  if (!(await deps.auth.isSetUp())) {
    return send(ctx, 503, page('Admin UI closed', '<p>The admin UI opens once an admin password is set. On the server, run:</p><pre>npx agent-gateway admin set-password</pre>'));
  }
  const token = ctx.cookies.get(COOKIE);
  const path = ctx.path.replace(/\/$/, '') || '/settings';

  if (path === '/settings/login') {
    if (ctx.method === 'GET') return send(ctx, 200, page('Log in', loginForm()));
    if (ctx.method !== 'POST') return send(ctx, 405, page('Not allowed', ''));
    const form = await readForm(ctx);
    try {
      const started = await deps.auth.login(formField(form, 'password') ?? '', ctx.ip);
      ctx.cookies.set(COOKIE, started.token, { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: '/settings', expires: started.session.expiresAt, overwrite: true });
      return redirect(ctx, '/settings/keys');
    } catch (error) {
      if (!isDomainError(error)) throw error;
      return send(ctx, error.code === 'rate_limited' ? 429 : 401, page('Log in', loginForm(error.message)));
    }
  }

  const session = await deps.auth.session(token);
  if (!session) {
    if (ctx.method === 'GET') return redirect(ctx, '/settings/login');
    return send(ctx, 401, page('Log in', loginForm('Your session has ended; log in again.')));
  }

  if (ctx.method === 'POST') {
    const form = await readForm(ctx);
    if (!deps.auth.csrfMatches(session, formField(form, 'csrf'))) return send(ctx, 403, page('Refused', '<p class="error">The form was not sent from this admin page (CSRF check failed).</p>', session.csrfToken));
    if (path === '/settings/logout') {
      await deps.auth.logout(token);
      ctx.cookies.set(COOKIE, '', { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: '/settings', expires: new Date(0) });
      return redirect(ctx, '/settings/login');
    }
    if (path === '/settings/keys') {
      try {
        const created = await deps.keys.create(formField(form, 'name') ?? '');
        return send(ctx, 200, page('API keys', await keysPage(deps.keys, session, created), session.csrfToken));
      } catch (error) {
        if (!isDomainError(error)) throw error;
        return send(ctx, 400, page('API keys', `<p class="error" role="alert">${esc(error.message)}</p>${await keysPage(deps.keys, session)}`, session.csrfToken));
      }
    }
    const cancel = /^\/settings\/jobs\/([^/]+)\/cancel$/.exec(path);
    if (cancel && UUID.test(cancel[1])) {
      await deps.cancelJob.execute(cancel[1].toLowerCase()).catch((error: unknown) => {
        if (!isDomainError(error)) throw error;
      });
      return redirect(ctx, `/settings/jobs/${cancel[1]}`);
    }
    if (path === '/settings/chat') {
      const message = (formField(form, 'message') ?? '').trim();
      if (message !== '') {
        try {
          await deps.chat.execute({ threadId: webThread(token), text: message, images: [], metadata: { userId: 'web', chatTitle: 'Web chat' } });
        } catch {
          const turns = await deps.overview.conversation(webThread(token));
          return send(ctx, 502, page('Chat', chatPage(turns, session.csrfToken, 'Sorry, I encountered an error processing your message.'), session.csrfToken));
        }
      }
      return redirect(ctx, '/settings/chat');
    }
    const revoke = /^\/settings\/keys\/([^/]+)\/revoke$/.exec(path);
    if (revoke) {
      await deps.keys.revoke(pathSegment(revoke[1])).catch((error: unknown) => {
        if (!isDomainError(error)) throw error;
      });
      return redirect(ctx, '/settings/keys');
    }
    return send(ctx, 404, page('Not found', '', session.csrfToken));
  }

  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return send(ctx, 405, page('Not allowed', '', session.csrfToken));
  if (path === '/settings') return redirect(ctx, '/settings/keys');
  if (path === '/settings/static/ui.js') {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = UI_SCRIPT;
    return;
  }
  if (path === '/settings/keys') return send(ctx, 200, page('API keys', await keysPage(deps.keys, session), session.csrfToken));
  if (path === '/settings/triggers') return send(ctx, 200, page('Triggers', await triggersPage(deps.overview), session.csrfToken));
  if (path === '/settings/jobs') return send(ctx, 200, page('Jobs', await jobsPage(deps.overview, session.csrfToken), session.csrfToken));
  const jobPath = /^\/settings\/jobs\/([^/]+)$/.exec(path);
  if (jobPath) {
    const job = UUID.test(jobPath[1]) ? await deps.overview.job(jobPath[1].toLowerCase()) : null;
    if (!job) return send(ctx, 404, page('Not found', '<p>No such job.</p>', session.csrfToken));
    return send(ctx, 200, page(`Job ${job.id}`, jobPage(job, session.csrfToken), session.csrfToken));
  }
  if (path === '/settings/messaging') return send(ctx, 200, page('Messaging', await messagingPage(deps.overview), session.csrfToken));
  if (path === '/settings/health') return send(ctx, 200, page('Health', await healthPage(deps.overview, new Date()), session.csrfToken));
  if (path === '/settings/chat') return send(ctx, 200, page('Chat', chatPage(await deps.overview.conversation(webThread(token)), session.csrfToken), session.csrfToken));
  const confirm = /^\/settings\/keys\/([^/]+)\/revoke$/.exec(path);
  if (confirm) {
    const id = pathSegment(confirm[1]);
    const key = (await deps.keys.list()).find((k) => k.id === id);
    if (!key) return send(ctx, 404, page('Not found', '<p>No such key.</p>', session.csrfToken));
    return send(
      ctx,
      200,
      page(
        'Revoke key',
        `<p>Revoke <strong>${esc(key.name)}</strong> (<code>${esc(key.prefix)}…</code>)? Callers using it get 401 at once.</p>
<form method="post" action="/settings/keys/${esc(key.id)}/revoke"><input type="hidden" name="csrf" value="${esc(session.csrfToken)}">
<button type="submit" class="danger">Revoke</button> <a href="/settings/keys">Cancel</a></form>`,
        session.csrfToken,
      ),
    );
  }
  return send(ctx, 404, page('Not found', '', session.csrfToken));
};
