import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import { type AdminAuthentication, MAX_FAILURES } from '../../../src/application/auth/admin-authentication.js';
import { loginNonce } from '../../support/admin-http.js';
import { ADMIN_PASSWORD as PASSWORD, adminAuthentication, type LoopbackServer, serveAdminUi } from '../../support/admin-ui.js';
import { InMemoryLoginAttempts } from '../../fakes/in-memory-login-attempts.js';

/*
 * The admin UI refuses a form POST that a browser says comes from another site (Sec-Fetch-Site,
 * Origin) before anything else, and a login without its page's nonce (cookie and field) before
 * its password is checked or counted: a page the admin visits cannot post wrong passwords to the
 * login and lock the admin out, nor post any other admin form (CSRF tokens), also where the
 * browser says nothing of the origin (plain HTTP: no Sec-Fetch-Site; `Origin: null`). Same-origin
 * posts, and posts without either header (curl, old clients) with the nonce, are taken as before.
 */

interface Answer {
  readonly status: number;
  readonly location: string | undefined;
  readonly cookies: readonly string[];
  readonly body: string;
}

describe('admin UI: forms posted from another site', () => {
  let server: LoopbackServer;
  let port: number;
  let attempts: InMemoryLoginAttempts;
  let auth: AdminAuthentication;

  const start = async (trustProxy: boolean): Promise<void> => {
    attempts = new InMemoryLoginAttempts();
    auth = await adminAuthentication({ attempts });
    // Only the login and the logout are posted here: the other parts are never reached.
    server = await serveAdminUi({ auth }, { proxy: trustProxy });
    port = server.port;
  };

  afterEach(() => server.close());

  /** A form POST with exactly these headers (node:http: Host and Sec-Fetch-Site as a browser would send them). */
  const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const body = new URLSearchParams(form).toString();
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path,
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body), ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              location: res.headers.location,
              cookies: res.headers['set-cookie'] ?? [],
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  /**
   * A login as the login page's form posts it: with the nonce (cookie and field) of that page,
   * fetched over the same scheme (a proxy's X-Forwarded-Proto: over HTTPS it is a __Host- cookie).
   */
  const login = async (password: string, headers: Record<string, string> = {}) => {
    const proto = headers['x-forwarded-proto'];
    const { cookie, nonce } = await loginNonce(`http://127.0.0.1:${port}`, proto === undefined ? {} : { 'x-forwarded-proto': proto });
    return post('/settings/login', { password, nonce }, { cookie, ...headers });
  };
  const own = () => `http://127.0.0.1:${port}`;
  /** Failed logins counted against any client so far. */
  const counted = () => [...attempts.windows.values()].reduce((sum, window) => sum + window.attempts, 0);

  /** Refused for its origin (another site), or, for a login, for a nonce missing or not its cookie's: each says which. */
  const expectRefused = (answer: Answer, by: 'origin' | 'nonce' = 'origin'): void => {
    expect(answer.status).to.equal(403);
    expect(answer.body).to.contain('<title>Refused');
    const [said, unsaid] = [
      'The form was not sent from this admin page (its origin is another site)',
      'The login form&#39;s nonce is missing or does not match its cookie (agw_login_nonce): load /settings/login first and send its form. A script keeps the cookie that page sets and posts its nonce field with the password',
    ];
    expect(answer.body).to.contain(by === 'origin' ? said : unsaid);
    expect(answer.body).not.to.contain(by === 'origin' ? unsaid : said);
    expect(answer.cookies.join('\n'), 'no session, no refusal reason').not.to.match(/agw_session=|agw_login=/);
  };

  describe('the login', () => {
    beforeEach(() => start(false));

    it('refuses, uncounted, wrong passwords posted from another site: the admin is not locked out', async () => {
      const attacks: Array<Record<string, string>> = [
        { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
        { 'sec-fetch-site': 'same-site', origin: `http://other.127.0.0.1:${port}` },
        { 'sec-fetch-site': 'cross-site' },
        { origin: 'https://evil.example' },
        { origin: 'null', 'sec-fetch-site': 'cross-site' },
        // Fetch metadata decides where a browser sends it, whatever Origin says.
        { origin: own(), 'sec-fetch-site': 'cross-site' },
        { origin: `http://127.0.0.1:${port + 1}` },
        { origin: 'not a url' },
      ];
      for (let round = 0; round < MAX_FAILURES; round++) for (const headers of attacks) expectRefused(await login(`guess ${round}`, headers));
      expect(counted(), 'failed logins counted').to.equal(0);
      expect(attempts.reads + attempts.writes, 'the login limit never consulted').to.equal(0);
      const answer = await login(PASSWORD, { origin: own(), 'sec-fetch-site': 'same-origin' });
      expect(answer).to.deep.include({ status: 303, location: '/settings/keys' });
    });

    it('refuses the right password from another site too, starting no session', async () => {
      expectRefused(await login(PASSWORD, { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }));
    });

    it("takes a login with its page's nonce from the service's own origin, from its own pages (Origin: null under no-referrer, Sec-Fetch-Site same-origin) and without either header (curl)", async () => {
      const clients: Array<Record<string, string>> = [
        { origin: own(), 'sec-fetch-site': 'same-origin' },
        { origin: own() },
        { origin: `HTTP://127.0.0.1:${port}` },
        { origin: 'null', 'sec-fetch-site': 'same-origin' },
        { 'sec-fetch-site': 'same-origin' },
        { 'sec-fetch-site': 'none' },
        // A browser without fetch metadata posting the pages' forms under no-referrer.
        { origin: 'null' },
        // Behind a reverse proxy that passes its own Host on (nginx's default): the browser's word decides.
        { origin: 'https://gw.example.com', 'sec-fetch-site': 'same-origin' },
        {},
      ];
      for (const headers of clients)
        expect(await login(PASSWORD, headers), JSON.stringify(headers)).to.deep.include({ status: 303, location: '/settings/keys' });
      const wrong = await login('guess', { origin: own(), 'sec-fetch-site': 'same-origin' });
      expect(wrong).to.deep.include({ status: 303, location: '/settings/login' });
      expect(wrong.cookies.join('\n')).to.contain('agw_login=unauthorized');
      expect(counted(), 'a wrong password from the own origin is counted as before').to.equal(1);
    });

    it("refuses, uncounted, a login without its page's nonce however it looks: a page of another site over plain HTTP posts with Origin: null and no Sec-Fetch-Site", async () => {
      const { cookie, nonce } = await loginNonce(own());
      const other = (await loginNonce(own())).nonce;
      expect(other, 'a new nonce for a browser without one').not.to.equal(nonce);
      const forms: Array<[string, Record<string, string>, string]> = [
        ['no nonce, no cookie', {}, ''],
        ['a cookie, no field', {}, cookie],
        ['a field, no cookie (what a page of another site can send)', { nonce }, ''],
        ["another browser's nonce", { nonce: other }, cookie],
        ['an empty nonce', { nonce: '' }, 'agw_login_nonce='],
      ];
      const origins: Array<Record<string, string>> = [{ origin: 'null' }, {}, { origin: own() }, { 'sec-fetch-site': 'same-origin' }];
      for (let round = 0; round < MAX_FAILURES; round++)
        for (const [how, form, sent] of forms)
          for (const headers of origins) {
            const answer = await post('/settings/login', { password: `guess ${round}`, ...form }, { ...headers, ...(sent === '' ? {} : { cookie: sent }) });
            expect(answer.status, `${how} ${JSON.stringify(headers)}`).to.equal(403);
            expectRefused(answer, 'nonce');
          }
      expect(counted(), 'failed logins counted').to.equal(0);
      expect(attempts.reads + attempts.writes, 'the login limit never consulted').to.equal(0);
      // The admin's own form (Origin: null under the pages' no-referrer, no Sec-Fetch-Site over plain HTTP) still logs in.
      expect(await post('/settings/login', { password: PASSWORD, nonce }, { origin: 'null', cookie })).to.deep.include({
        status: 303,
        location: '/settings/keys',
      });
    });

    it("gives the login form its nonce in an HttpOnly, SameSite=Strict cookie, keeping the browser's own (another tab's form still works)", async () => {
      const first = await fetch(`${own()}/settings/login`);
      expect(first.headers.getSetCookie()).to.have.length(1);
      expect(first.headers.getSetCookie()[0]).to.match(/^agw_login_nonce=[\w-]{43}; path=\/settings; samesite=strict; httponly$/);
      const cookie = first.headers.getSetCookie()[0].split(';')[0];
      const again = await fetch(`${own()}/settings/login`, { headers: { cookie } });
      expect(again.headers.getSetCookie(), 'no new nonce').to.deep.equal([]);
      expect(await again.text()).to.contain(`name="nonce" value="${cookie.slice('agw_login_nonce='.length)}"`);
    });

    it('takes an Origin naming the Host header with either scheme (a proxy serving HTTPS without TRUST_PROXY)', async () => {
      for (const origin of ['https://gw.example.com', 'http://gw.example.com'])
        expect(await login(PASSWORD, { host: 'gw.example.com', origin }), origin).to.deep.include({ status: 303, location: '/settings/keys' });
      expectRefused(await login(PASSWORD, { host: 'gw.example.com', origin: 'https://gw.example.com.evil.example' }));
    });
  });

  describe('behind a trusted proxy (TRUST_PROXY)', () => {
    beforeEach(() => start(true));

    it('takes the origin the proxy was reached at (X-Forwarded-Host, X-Forwarded-Proto), refuses another', async () => {
      const proxied = { host: '127.0.0.1', 'x-forwarded-host': 'gw.example.com', 'x-forwarded-proto': 'https' };
      expect(await login(PASSWORD, { ...proxied, origin: 'https://gw.example.com', 'sec-fetch-site': 'same-origin' })).to.deep.include({
        status: 303,
        location: '/settings/keys',
      });
      expectRefused(await login(PASSWORD, { ...proxied, origin: 'https://evil.example' }));
    });
  });

  describe('a signed-in form', () => {
    beforeEach(() => start(false));

    it('refuses every signed-in form posted with Origin: null and no Sec-Fetch-Site unless it carries the session and its CSRF token', async () => {
      const started = await login(PASSWORD, { origin: own() });
      const token = /agw_session=([^;]+)/.exec(started.cookies.join('\n'))?.[1] as string;
      const session = await auth.session(token);
      const asAnotherSite = { origin: 'null' };
      // A page of another site: its post carries no SameSite=Strict session cookie.
      const withoutSession = await post('/settings/logout', { csrf: session!.csrfToken }, asAnotherSite);
      expect(withoutSession.status).to.equal(401);
      // Even were the cookie sent, the page does not know the CSRF token.
      for (const form of [{}, { csrf: 'guess' }] as Array<Record<string, string>>) {
        const answer = await post('/settings/logout', form, { ...asAnotherSite, cookie: `agw_session=${token}` });
        expect(answer.status).to.equal(403);
        expect(answer.body).to.contain('CSRF check failed');
      }
      expect(await auth.session(token), 'still signed in').not.to.equal(null);
    });

    it('refuses a form with the right CSRF token posted from another site, and takes it from the own origin', async () => {
      const started = await login(PASSWORD, { origin: own() });
      const token = /agw_session=([^;]+)/.exec(started.cookies.join('\n'))?.[1] as string;
      const session = await auth.session(token);
      expect(session).not.to.equal(null);
      const cookie = { cookie: `agw_session=${token}` };
      const form = { csrf: session!.csrfToken };
      expectRefused(await post('/settings/logout', form, { ...cookie, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }));
      expect(await auth.session(token), 'still signed in').not.to.equal(null);
      expect(await post('/settings/logout', form, { ...cookie, origin: own(), 'sec-fetch-site': 'same-origin' })).to.deep.include({
        status: 303,
        location: '/settings/login',
      });
      expect(await auth.session(token), 'signed out').to.equal(null);
    });
  });
});
