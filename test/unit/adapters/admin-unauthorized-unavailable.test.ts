import { expect } from 'chai';
import { DatabaseUnavailable } from '../../../src/adapters/shared/database-unavailable.js';
import type { AdminAuthentication } from '../../../src/application/auth/admin-authentication.js';
import { adminAuthentication, type LoopbackServer, serveAdminUi } from '../../support/admin-ui.js';

/*
 * The admin UI's answers a browser gets without a session and while the database is unavailable:
 * every 401 names how to authenticate in WWW-Authenticate (RFC 9110 §11.6.1) — the login form's
 * session cookie — while a page is redirected to the login; a request that needs the database
 * while it cannot be used gets a 503 page titled "Database unavailable" with Retry-After, as the
 * API's callers get a 503 `{error}` with it.
 */

describe('admin UI: 401 challenges and the database unavailable', () => {
  let server: LoopbackServer | undefined;
  let base: string;

  const serve = async (auth: AdminAuthentication, trustProxy = false): Promise<void> => {
    // Only the session check and the login page are reached here: the other parts are never used.
    server = await serveAdminUi({ auth }, { proxy: trustProxy });
    base = server.base;
  };

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const realAuth = () => adminAuthentication();

  const CHALLENGE = 'Cookie realm="agent-gateway admin", form-action="/settings/login", cookie-name="agw_session"';

  it('names the session cookie of the login form in WWW-Authenticate on every 401 (a form, an htmx request); a page is redirected to the login without it', async () => {
    await serve(await realAuth());
    const form = await fetch(`${base}/settings/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: 'agw_session=ended' },
      body: 'csrf=x',
    });
    expect(form.status).to.equal(401);
    expect(form.headers.get('www-authenticate')).to.equal(CHALLENGE);
    expect(await form.text()).to.contain('Your session has ended; log in again.');

    const live = await fetch(`${base}/settings/status`, { redirect: 'manual', headers: { 'HX-Request': 'true' } });
    expect(live.status).to.equal(401);
    expect(live.headers.get('hx-redirect')).to.equal('/settings/login');
    expect(live.headers.get('www-authenticate')).to.equal(CHALLENGE);

    const page = await fetch(`${base}/settings/keys`, { redirect: 'manual' });
    expect(page.status).to.equal(303);
    expect(page.headers.get('location')).to.equal('/settings/login');
    expect(page.headers.get('www-authenticate')).to.equal(null);
    const login = await fetch(`${base}/settings/login`, { redirect: 'manual' });
    expect(login.status).to.equal(200);
    expect(login.headers.get('www-authenticate')).to.equal(null);
  });

  it('over HTTPS names the session cookie by its __Host- name, the one the login sets there', async () => {
    await serve(await realAuth(), true);
    const live = await fetch(`${base}/settings/status`, { redirect: 'manual', headers: { 'HX-Request': 'true', 'X-Forwarded-Proto': 'https' } });
    expect(live.status).to.equal(401);
    expect(live.headers.get('www-authenticate')).to.equal(CHALLENGE.replace('cookie-name="agw_session"', 'cookie-name="__Host-agw_session"'));
  });

  it('answers a request while the database is unavailable with a 503 page titled "Database unavailable", with Retry-After, never JSON or a 500', async () => {
    const down = new DatabaseUnavailable('The PostgreSQL server cannot be used for now: connect ECONNREFUSED 10.0.0.5:5432');
    let failing: 'setup' | 'session' = 'setup';
    const auth = await realAuth();
    // The first statement of a request: whether a password exists, then the session's lookup (also as another error's cause).
    auth.isSetUp = async () => {
      if (failing === 'setup') throw down;
      return true;
    };
    auth.session = async () => {
      throw new Error('Could not read the session', { cause: down });
    };
    await serve(auth);
    for (const [what, path, init] of [
      ['the login page', '/settings/login', {}],
      ['a login', '/settings/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'password=x&nonce=y' }],
      ['a signed-in page', '/settings/keys', { headers: { cookie: 'agw_session=some' } }],
    ] as const) {
      if (what === 'a signed-in page') failing = 'session';
      const response = await fetch(`${base}${path}`, { redirect: 'manual', ...init });
      const body = await response.text();
      expect(response.status, what).to.equal(503);
      expect(response.headers.get('retry-after'), what).to.equal('5');
      expect(response.headers.get('content-type'), what).to.equal('text/html; charset=utf-8');
      expect(body, what).to.contain('<title>Database unavailable · Agent Gateway</title>');
      expect(body, what).to.contain('Database unavailable; try again shortly');
      // What failed (a host, a file) stays in the log.
      expect(body, what).not.to.contain('10.0.0.5');
    }
  });
});
