import { createHmac, timingSafeEqual } from 'node:crypto';
/** How long a flash waits for the page after a redirect. */
const FLASH_SECONDS = 120;
const mac = (secret, payload) => createHmac('sha256', secret).update(payload).digest();
/**
 * Leaves a value for the next page (Post/Redirect/Get): a short-lived HttpOnly, SameSite=Strict
 * cookie (Secure over HTTPS) on `cookie.path`, signed with the session's CSRF token so that only
 * this session's own pages wrote it. Nothing is stored on the server, so it works on any replica.
 */
export const setFlash = (ctx, cookie, secret, value) => {
    const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
    ctx.cookies.set(cookie.name, `${payload}.${mac(secret, payload).toString('base64url')}`, {
        httpOnly: true,
        sameSite: 'strict',
        secure: ctx.secure,
        path: cookie.path,
        maxAge: FLASH_SECONDS * 1000,
        overwrite: true,
    });
};
/** Ends a flash cookie. */
export const clearFlash = (ctx, cookie) => {
    ctx.cookies.set(cookie.name, '', { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: cookie.path, expires: new Date(0), overwrite: true });
};
/**
 * The flash left for this page, read once: the cookie is cleared in the same answer. A value
 * that is malformed or not signed with this session's token is ignored.
 */
export const takeFlash = (ctx, cookie, secret) => {
    const raw = ctx.cookies.get(cookie.name);
    if (raw === undefined || raw === '')
        return undefined;
    clearFlash(ctx, cookie);
    const [payload, signature] = raw.split('.');
    if (!payload || !signature)
        return undefined;
    const expected = mac(secret, payload);
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
        return undefined;
    try {
        return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    }
    catch {
        return undefined;
    }
};
//# sourceMappingURL=flash.js.map