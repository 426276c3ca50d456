import { isDomainError } from '../../../domain/errors/domain-error.js';
import { shownLines } from '../../../domain/triggers/approval-summary.js';
import { unprintableNameProblem } from '../../../domain/triggers/validate-triggers.js';
import { answerFor } from '../error-status.js';
import { field, NOTICE, notFound, pathParameter, seeOther, showPage, signedIn, type AdminRouter, type AdminTools } from './admin-http.js';
import { setFlash, takeFlash, type FlashCookie } from './flash.js';
import { stamp } from './present.js';

/**
 * The key created a moment ago, on its way to the page that shows it once: a flash cookie
 * sent only to /settings/keys, read and cleared by its next GET. The key is never stored in
 * clear on the server, and any replica can show it.
 */
export const NEW_KEY: FlashCookie = { name: 'agw_new_key', path: '/settings/keys' };

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

const isCreatedKey = (value: unknown): value is CreatedKey =>
  typeof value === 'object' && value !== null && typeof (value as CreatedKey).name === 'string' && typeof (value as CreatedKey).key === 'string';

/** API keys: list, create (shown once), revoke after a confirmation. */
export const registerKeyPages = (router: AdminRouter, tools: AdminTools): void => {
  const { keys } = tools.deps;

  router.get('/settings/keys', async (ctx) => {
    const now = new Date();
    const created = takeFlash(ctx, NEW_KEY, signedIn(ctx).session.csrfToken);
    const list = (await keys.list()).map((key) => ({
      id: key.id,
      name: shownName(key.name),
      prefix: key.prefix,
      createdAt: stamp(key.createdAt, now),
      lastUsedAt: key.lastUsedAt ? stamp(key.lastUsedAt, now) : null,
    }));
    showPage(ctx, tools, 'keys', 'API keys', 'keys', { keys: list, created: isCreatedKey(created) ? created : null });
  });

  router.post('/settings/keys', tools.form, async (ctx) => {
    const secret = signedIn(ctx).session.csrfToken;
    try {
      const created = await keys.create(field(ctx, 'name'));
      setFlash(ctx, NEW_KEY, secret, { name: created.name, key: created.key } satisfies CreatedKey);
    } catch (error) {
      if (!isDomainError(error) || answerFor(error).status >= 500) throw error;
      setFlash(ctx, NOTICE, secret, { kind: 'error', text: error.message });
    }
    seeOther(ctx, '/settings/keys');
  });

  router.get('/settings/keys/:id/revoke', async (ctx) => {
    const id = pathParameter(ctx, 0);
    const key = (await keys.list()).find((candidate) => candidate.id === id);
    if (!key) return notFound(ctx, tools, 'No such key: it may have been revoked already.', { href: '/settings/keys', label: 'Back to the API keys' });
    showPage(ctx, tools, 'revokeKey', 'Revoke key', 'keys', { key: { id: key.id, name: shownName(key.name), prefix: key.prefix } });
  });

  router.post('/settings/keys/:id/revoke', tools.form, async (ctx) => {
    const id = pathParameter(ctx, 0);
    const key = (await keys.list()).find((candidate) => candidate.id === id);
    await keys.revoke(id).catch((error: unknown) => {
      // Revoked already (another tab, the CLI): the outcome the admin asked for.
      if (!isDomainError(error)) throw error;
    });
    setFlash(ctx, NOTICE, signedIn(ctx).session.csrfToken, {
      kind: 'notice',
      text: key ? `Key ${shownName(key.name)} revoked: callers using it now get 401.` : 'That key was revoked already.',
    });
    seeOther(ctx, '/settings/keys');
  });
};
