import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { NodeApiKeyCrypto } from '../../../src/adapters/crypto/node-api-key-crypto.js';
import { ScryptPasswordHasher } from '../../../src/adapters/crypto/scrypt-password-hasher.js';
import { adminUi, type AdminUiDependencies } from '../../../src/adapters/http/admin/admin-ui.js';
import { AdminAuthentication, MAX_FAILURES } from '../../../src/application/auth/admin-authentication.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryAdminStore } from '../../fakes/in-memory-admin-store.js';
import { InMemoryLoginAttempts } from '../../fakes/in-memory-login-attempts.js';
import { ManualTimer } from '../../fakes/manual-timer.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';

/*
 * The admin UI refuses a form POST that a browser says comes from another site (Sec-Fetch-Site,
 * Origin) before anything else: a page the admin visits cannot post wrong passwords to the login
 * and lock the admin out, nor post any other admin form. Same-origin posts, and posts without
 * either header (curl, old clients), are taken as before.
 */

const PASSWORD = 'correct horse battery';

interface Answer {
  readonly status: number;
  readonly location: string | undefined;
  readonly cookies: readonly string[];
  readonly body: string;
}

describe('admin UI: forms posted from another site', () => {
  let server: Server;
  let port: number;
  let attempts: InMemoryLoginAttempts;
  let auth: AdminAuthentication;

  const start = async (trustProxy: boolean): Promise<void> => {
    attempts = new InMemoryLoginAttempts();
    auth = new AdminAuthentication(
      new InMemoryAdminStore(),
      attempts,
      new ScryptPasswordHasher(2 ** 10),
      new NodeApiKeyCrypto(),
      new SequentialIds(),
      new FixedClock(),
      new ManualTimer(),
    );
    await auth.setPassword(PASSWORD);
    // Only the login and the logout are posted here: the other parts are never reached.
    const deps = { auth, logger: new RecordingLogger() } as Partial<AdminUiDependencies> as AdminUiDependencies;
    const app = new Koa();
    app.silent = true;
    app.proxy = trustProxy;
    app.use(adminUi(deps));
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };

  afterEach(async () => new Promise<void>((resolve) => server.close(() => resolve())));

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

  const login = (password: string, headers: Record<string, string> = {}) => post('/settings/login', { password }, headers);
  const own = () => `http://127.0.0.1:${port}`;
  /** Failed logins counted against any client so far. */
  const counted = () => [...attempts.windows.values()].reduce((sum, window) => sum + window.attempts, 0);

  const expectRefused = (answer: Answer): void => {
    expect(answer.status).to.equal(403);
    expect(answer.body).to.contain('<title>Refused').and.to.contain('The form was not sent from this admin page');
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

    it("takes a login from the service's own origin, from its own pages (Origin: null under no-referrer, Sec-Fetch-Site same-origin) and without either header (curl)", async () => {
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
