import type { Context } from 'koa';

/** A cookie of the admin UI, as it is named and scoped over plain HTTP. */
export interface AdminCookie {
  /** Cookie name over plain HTTP; over HTTPS it takes the `__Host-` prefix (adminCookieName). */
  readonly name: string;
  /** The path the cookie is sent to over plain HTTP; over HTTPS it is `/` (a `__Host-` cookie's). */
  readonly path: string;
}

/** How long a cookie lives: till a date, for a number of milliseconds, or (neither) the browser session. */
export interface CookieLife {
  readonly expires?: Date;
  readonly maxAge?: number;
}

/**
 * The name a cookie of the admin UI has on this request. Over HTTPS (`ctx.secure`: the
 * connection's own TLS, or with TRUST_PROXY a proxy's `X-Forwarded-Proto: https`) it is
 * `__Host-` + the name: a browser takes such a cookie only when it is Secure, has `Path=/` and no
 * `Domain`, so neither a sibling host (`evil.example.com` setting a cookie for `example.com`) nor
 * a plain-HTTP page of the same host can plant or overwrite it — and a cookie under the bare name,
 * which they could plant, is never read over HTTPS. Over plain HTTP (localhost, a LAN address)
 * browsers refuse the prefix without Secure, so the bare name is kept there.
 */
export const adminCookieName = (ctx: Context, cookie: AdminCookie): string => (ctx.secure ? `__Host-${cookie.name}` : cookie.name);

/** This request's value of an admin cookie (under its name for this request's scheme). */
export const adminCookie = (ctx: Context, cookie: AdminCookie): string | undefined => ctx.cookies.get(adminCookieName(ctx, cookie));

/**
 * Sets an admin cookie: HttpOnly, SameSite=Strict; over HTTPS `__Host-`, Secure, `Path=/`, no
 * Domain; over plain HTTP its bare name on its own path, not Secure.
 */
export const setAdminCookie = (ctx: Context, cookie: AdminCookie, value: string, life: CookieLife = {}): void => {
  ctx.cookies.set(adminCookieName(ctx, cookie), value, {
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.secure,
    path: ctx.secure ? '/' : cookie.path,
    ...life,
    overwrite: true,
  });
};

/** Ends an admin cookie (the one of this request's scheme). */
export const clearAdminCookie = (ctx: Context, cookie: AdminCookie): void => setAdminCookie(ctx, cookie, '', { expires: new Date(0) });
