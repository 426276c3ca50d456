import { expect } from 'chai';
import { isDomainError } from '../../src/domain/errors/domain-error.js';
import { runCli } from './gateway-process.js';
import { runningServerAdmin } from './http.js';

/**
 * Sets the admin password: through the running server's admin socket (resolves with 0, or 1
 * when refused, as the CLI exits), else
 * `agent-gateway admin set-password` with the password on stdin (resolves with its exit code).
 */
export const setAdminPassword = async (env: Record<string, string>, password: string): Promise<number | null> => {
  const server = await runningServerAdmin(env);
  if (server !== undefined) {
    try {
      await server.setAdminPassword(password);
      return 0;
    } catch (error) {
      if (isDomainError(error)) return 1; // refused, as the CLI exits
      throw error;
    }
  }
  return (await runCli(['admin', 'set-password'], env, { input: `${password}\n` })).code;
};

/** The cookie a Set-Cookie header sets (`name=value`), or undefined. */
export const cookieFrom = (response: Response, name: string): string | undefined =>
  response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .find((pair) => pair.startsWith(`${name}=`));

/** The whole Set-Cookie line for one cookie, or undefined. */
export const setCookieLine = (response: Response, name: string): string | undefined =>
  response.headers.getSetCookie().find((line) => line.startsWith(`${name}=`));

/**
 * What the login page gives a browser for its form: the nonce cookie (`name=value`; named
 * `__Host-agw_login_nonce` over HTTPS, `agw_login_nonce` over plain HTTP) and the form's `nonce` field.
 */
export const loginNonce = async (baseUrl: string, headers: Record<string, string> = {}): Promise<{ cookie: string; nonce: string }> => {
  const page = await fetch(`${baseUrl}/settings/login`, { headers, redirect: 'manual' });
  expect(page.status).to.equal(200);
  const cookie = cookieFrom(page, 'agw_login_nonce') ?? cookieFrom(page, '__Host-agw_login_nonce');
  const nonce = /name="nonce" value="([^"]+)"/.exec(await page.text())?.[1];
  expect(cookie, 'the login page sets its nonce cookie').not.to.equal(undefined);
  expect(cookie).to.be.oneOf([`agw_login_nonce=${nonce}`, `__Host-agw_login_nonce=${nonce}`]);
  return { cookie: cookie!, nonce: nonce! };
};

/**
 * Drives /settings over HTTP as a browser would: cookies by hand, forms url-encoded, no redirects
 * followed. A login form without a `nonce` is posted as the login page's form is: with the nonce
 * (cookie and field) of a login page fetched first.
 */
export const adminClient = (baseUrl: string) => {
  const get = (path: string, cookie = '', headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}${path}`, { headers: { cookie, ...headers }, redirect: 'manual' });
  const post = async (path: string, form: Record<string, string>, cookie = '') => {
    if (path === '/settings/login' && form.nonce === undefined) {
      const given = await loginNonce(baseUrl);
      form = { ...form, nonce: given.nonce };
      cookie = [cookie, given.cookie].filter((pair) => pair !== '').join('; ');
    }
    return fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
  };
  /** Logs in; returns the session cookie and the CSRF token of its forms. */
  const login = async (password: string): Promise<{ cookie: string; csrf: string }> => {
    const response = await post('/settings/login', { password });
    expect(response.status).to.equal(303);
    const cookie = cookieFrom(response, 'agw_session')!;
    const page = await (await get('/settings/keys', cookie)).text();
    return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page)![1] };
  };
  return { get, post, login };
};
