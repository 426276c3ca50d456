import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { adminCookie, clearAdminCookie, setAdminCookie, type AdminCookie } from './admin-cookie.js';

/** How long a flash waits for the page after a redirect. */
const FLASH_SECONDS = 120;

/** A flash's cookie: its path (over plain HTTP) is the page that shows it. */
export type FlashCookie = AdminCookie;

const mac = (secret: string, payload: string): Buffer => createHmac('sha256', secret).update(payload).digest();

/**
 * Leaves a value for the next page (Post/Redirect/Get): a short-lived HttpOnly, SameSite=Strict
 * cookie on `cookie.path` (over HTTPS `__Host-`, Secure, on `/`: setAdminCookie), signed with the session's CSRF token so that only
 * this session's own pages wrote it. Nothing is stored on the server, so it works on any replica.
 */
export const setFlash = (ctx: Context, cookie: FlashCookie, secret: string, value: unknown): void => {
  const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
  setAdminCookie(ctx, cookie, `${payload}.${mac(secret, payload).toString('base64url')}`, { maxAge: FLASH_SECONDS * 1000 });
};

/** Ends a flash cookie. */
export const clearFlash = (ctx: Context, cookie: FlashCookie): void => {
  clearAdminCookie(ctx, cookie);
};

/**
 * The flash left for this page, read once: the cookie is cleared in the same answer. A value
 * that is malformed or not signed with this session's token is ignored.
 */
export const takeFlash = (ctx: Context, cookie: FlashCookie, secret: string): unknown => {
  const raw = adminCookie(ctx, cookie);
  if (raw === undefined || raw === '') return undefined;
  clearFlash(ctx, cookie);
  const [payload, signature] = raw.split('.');
  if (!payload || !signature) return undefined;
  const expected = mac(secret, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
};
