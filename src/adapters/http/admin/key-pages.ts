import type { Context } from 'koa';
import { isDomainError } from '../../../domain/errors/domain-error.js';
import { isUuid } from '../../../domain/ids/is-uuid.js';
import { shownLines } from '../../../domain/triggers/approval-summary.js';
import { unprintableNameProblem } from '../../../domain/triggers/validate-triggers.js';
import { answerFor } from '../error-status.js';
import { field, frame, NOTICE, notFound, pathParameter, seeOther, sendPage, showPage, signedIn, type AdminRouter, type AdminTools } from './admin-http.js';
import { setFlash } from './flash.js';
import { stamp } from './present.js';

/**
 * The cookie that used to carry a new key from the form to the page that showed it: signed, not
 * encrypted, so the key was in clear in every Set-Cookie and Cookie header a proxy or a log
 * recorded. Nothing sets it any more (the form's own answer shows the key); logging out still
 * clears one a browser may hold from before an upgrade (admin-ui.ts).
 */
const NEW_KEY = { name: 'agw_new_key', path: '/settings/keys' } as const;

/**
 * Ends the NEW_KEY cookie a browser may still hold: under its old name and path (it was never
 * set with the `__Host-` prefix that the admin cookies take over HTTPS).
 */
export const clearOldNewKeyCookie = (ctx: Context): void => {
  ctx.cookies.set(NEW_KEY.name, '', { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: NEW_KEY.path, expires: new Date(0), overwrite: true });
};

/**
 * A key's name as the pages show it: one made before names were checked (validateKeyName) may
 * hold bidi or zero-width characters, and is shown with them as escapes (shownLines) so that it
 * reads as what it is; it is still listed and revoked by its id.
 */
const shownName = (name: string): string => (unprintableNameProblem(name) === undefined ? name : shownLines(name));

interface CreatedKey {
  readonly name: string;
  readonly key: string;
}

/**
 * API keys: list, create (shown once), revoke after a confirmation. A new key is shown by the
 * answer to the form that created it (201, no-store like every admin page), not by a page after
 * a redirect: the key is never stored in clear on the server, and never travels in a cookie. That
 * answer is the admin UI's one exception to Post/Redirect/Get: reloading it sends the form again,
 * which a browser asks about first (the page says so).
 */
export const registerKeyPages = (router: AdminRouter, tools: AdminTools): void => {
  const { keys } = tools.deps;

  /** The API keys page: the list, under the key `created` by this very request if any. */
  const showKeys = async (ctx: Context, status: 200 | 201, created: CreatedKey | null): Promise<void> => {
    const now = new Date();
    const list = (await keys.list()).map((key) => ({
      id: key.id,
      name: shownName(key.name),
      prefix: key.prefix,
      createdAt: stamp(key.createdAt, now),
      lastUsedAt: key.lastUsedAt ? stamp(key.lastUsedAt, now) : null,
    }));
    const { csrfToken } = signedIn(ctx).session;
    sendPage(ctx, status, tools.views.page('keys', frame(ctx, 'API keys', 'keys'), { keys: list, created, csrf: csrfToken }));
  };

  router.get('/settings/keys', (ctx) => showKeys(ctx, 200, null));

  router.post('/settings/keys', tools.form, async (ctx) => {
    let created: CreatedKey;
    try {
      const key = await keys.create(field(ctx, 'name'));
      created = { name: key.name, key: key.key };
    } catch (error) {
      if (!isDomainError(error) || answerFor(error).status >= 500) throw error;
      setFlash(ctx, NOTICE, signedIn(ctx).session.csrfToken, { kind: 'error', text: error.message });
      return seeOther(ctx, '/settings/keys');
    }
    // The one page that holds a key: never stored, whatever the caching of the other pages.
    ctx.set('Cache-Control', 'no-store');
    await showKeys(ctx, 201, created);
  });

  router.get('/settings/keys/:id/revoke', async (ctx) => {
    const id = pathParameter(ctx, 0);
    // An address that names no key id at all (typed by hand): the page the POST answers, not "revoked already".
    if (!isUuid(id)) return notFound(ctx, tools, 'No such key: the address names no key id.', { href: '/settings/keys', label: 'Back to the API keys' });
    const key = (await keys.list()).find((candidate) => candidate.id === id.toLowerCase());
    if (!key) return notFound(ctx, tools, 'No such key: it may have been revoked already.', { href: '/settings/keys', label: 'Back to the API keys' });
    showPage(ctx, tools, 'revokeKey', 'Revoke key', 'keys', { key: { id: key.id, name: shownName(key.name), prefix: key.prefix } });
  });

  router.post('/settings/keys/:id/revoke', tools.form, async (ctx) => {
    const id = pathParameter(ctx, 0);
    // Ids are stored in lower case, and revoke takes either (an address typed in upper case).
    const key = (await keys.list()).find((candidate) => candidate.id === id.toLowerCase());
    try {
      await keys.revoke(id);
    } catch (error) {
      // An address that names no key id at all (typed by hand): nothing was, or could be, revoked.
      if (isDomainError(error) && error.code === 'invalid_input')
        return notFound(ctx, tools, 'No such key: the address names no key id.', { href: '/settings/keys', label: 'Back to the API keys' });
      // Revoked already (another tab, the CLI): the outcome the admin asked for.
      if (!isDomainError(error) || error.code !== 'not_found') throw error;
    }
    setFlash(ctx, NOTICE, signedIn(ctx).session.csrfToken, {
      kind: 'notice',
      text: key ? `Key ${shownName(key.name)} revoked: callers using it now get 401.` : 'That key was revoked already.',
    });
    seeOther(ctx, '/settings/keys');
  });
};
