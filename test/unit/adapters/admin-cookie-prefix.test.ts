import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { AdminAuthentication } from '../../../src/application/auth/admin-authentication.js';
import { ADMIN_PASSWORD as PASSWORD, adminAuthentication, type LoopbackServer, serveAdminUi } from '../../support/admin-ui.js';

/*
 * Over HTTPS (the connection's own TLS, or a trusted proxy's X-Forwarded-Proto: https) every
 * cookie the admin UI sets is a `__Host-` cookie — Secure, Path=/, no Domain — and only such
 * cookies are read: a sibling host or a plain-HTTP page cannot plant a login nonce, a session or
 * a refusal reason. Over plain HTTP (localhost), where browsers refuse the prefix without Secure,
 * the cookies keep their bare names on their own paths, as before.
 */

interface Answer {
  readonly status: number;
  readonly cookies: readonly string[];
  readonly body: string;
}

/** The `name=value` part of the Set-Cookie line that sets `name`, or undefined. */
const pair = (answer: Answer, name: string): string | undefined => answer.cookies.map((line) => line.split(';')[0]).find((part) => part.startsWith(`${name}=`));
const line = (answer: Answer, name: string): string | undefined => answer.cookies.find((each) => each.startsWith(`${name}=`));

describe('admin UI: cookie names and attributes by scheme', () => {
  let server: LoopbackServer;
  let port: number;
  let auth: AdminAuthentication;
  let secureTransport: { key: Buffer; cert: Buffer } | undefined;

  const start = async (how: 'http' | 'proxy' | 'tls'): Promise<void> => {
    auth = await adminAuthentication();
    // Only the login, its page and the logout are used here: the other parts are never reached.
    server = await serveAdminUi({ auth }, { proxy: how === 'proxy', tls: how === 'tls' ? secureTransport! : undefined });
    port = server.port;
  };

  afterEach(() => server.close());

  /** A request with exactly these headers; over TLS trusting the test's own certificate. */
  const send = (tls: boolean, method: string, path: string, headers: Record<string, string>, form?: Record<string, string>): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const body = form === undefined ? '' : new URLSearchParams(form).toString();
      const options = {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: form === undefined ? headers : { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body), ...headers },
      };
      const onAnswer = (res: import('node:http').IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, cookies: res.headers['set-cookie'] ?? [], body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      };
      const req = tls ? httpsRequest({ ...options, ca: secureTransport!.cert, servername: 'localhost' }, onAnswer) : httpRequest(options, onAnswer);
      req.on('error', reject);
      req.end(body);
    });

  /** The admin's browser on one scheme: its login page, login and logout. */
  const browser = (tls: boolean, extra: Record<string, string> = {}) => {
    const get = (path: string, cookie = '') => send(tls, 'GET', path, { ...extra, ...(cookie === '' ? {} : { cookie }) });
    const post = (path: string, form: Record<string, string>, cookie = '') => send(tls, 'POST', path, { ...extra, ...(cookie === '' ? {} : { cookie }) }, form);
    return { get, post };
  };

  /** Everything one scheme's browser goes through, checking the names and attributes of each cookie. */
  const expectCookies = async (client: ReturnType<typeof browser>, prefix: '' | '__Host-', attributes: { path: (own: string) => string; secure: string }) => {
    const nonceName = `${prefix}agw_login_nonce`;
    const page = await client.get('/settings/login');
    expect(page.status).to.equal(200);
    expect(page.cookies).to.have.length(1);
    expect(page.cookies[0]).to.match(
      new RegExp(`^${nonceName}=[\\w-]{43}; path=${attributes.path('/settings')}; samesite=strict${attributes.secure}; httponly$`),
    );
    const nonceCookie = pair(page, nonceName)!;
    const nonce = nonceCookie.slice(nonceName.length + 1);

    const wrong = await client.post('/settings/login', { password: 'a wrong guess', nonce }, nonceCookie);
    expect(wrong.status).to.equal(303);
    expect(line(wrong, `${prefix}agw_login`)).to.match(
      new RegExp(`^${prefix}agw_login=unauthorized; path=${attributes.path('/settings/login')}; expires=[^;]+; samesite=strict${attributes.secure}; httponly$`),
    );
    const told = await client.get('/settings/login', `${nonceCookie}; ${pair(wrong, `${prefix}agw_login`)}`);
    expect(told.body).to.contain('Wrong password.');

    const signedIn = await client.post('/settings/login', { password: PASSWORD, nonce }, nonceCookie);
    expect(signedIn.status).to.equal(303);
    const sessionName = `${prefix}agw_session`;
    expect(line(signedIn, sessionName)).to.match(
      new RegExp(`^${sessionName}=[^;]+; path=${attributes.path('/settings')}; expires=[^;]+; samesite=strict${attributes.secure}; httponly$`),
    );
    for (const each of [...page.cookies, ...wrong.cookies, ...signedIn.cookies]) expect(each, 'no Domain').not.to.match(/domain=/i);
    const token = pair(signedIn, sessionName)!.slice(sessionName.length + 1);
    const session = await auth.session(token);
    expect(session, 'the session cookie carries the session').not.to.equal(null);

    const loggedOut = await client.post('/settings/logout', { csrf: session!.csrfToken }, pair(signedIn, sessionName));
    expect(loggedOut.status, 'the session is read under its name').to.equal(303);
    expect(line(loggedOut, sessionName)).to.match(
      new RegExp(
        `^${sessionName}=; path=${attributes.path('/settings')}; expires=Thu, 01 Jan 1970 00:00:00 GMT; samesite=strict${attributes.secure}; httponly$`,
      ),
    );
    expect(await auth.session(token), 'signed out').to.equal(null);
  };

  describe('over plain HTTP', () => {
    beforeEach(() => start('http'));

    it('keeps the bare names on their own paths, not Secure (browsers refuse __Host- without it)', async () => {
      await expectCookies(browser(false), '', { path: (own) => own, secure: '' });
    });

    it('reads no __Host- cookie over plain HTTP', async () => {
      const client = browser(false);
      const page = await client.get('/settings/login');
      const nonce = pair(page, 'agw_login_nonce')!.slice('agw_login_nonce='.length);
      const answer = await client.post('/settings/login', { password: PASSWORD, nonce }, `__Host-agw_login_nonce=${nonce}`);
      expect(answer.status).to.equal(403);
      expect(answer.body).to.contain('does not match its cookie (agw_login_nonce)');
    });
  });

  describe('behind a trusted proxy that says the request came over HTTPS', () => {
    beforeEach(() => start('proxy'));
    const overHttps = { 'x-forwarded-proto': 'https' };

    it('sets every cookie as a __Host- cookie: Secure, Path=/, no Domain', async () => {
      await expectCookies(browser(false, overHttps), '__Host-', { path: () => '/', secure: '; secure' });
    });

    it('reads no bare-named cookie over HTTPS: a planted nonce, session or refusal reason counts for nothing', async () => {
      const client = browser(false, overHttps);
      const page = await client.get('/settings/login');
      const nonce = pair(page, '__Host-agw_login_nonce')!.slice('__Host-agw_login_nonce='.length);
      // A nonce planted under the bare name (a sibling host can set one for the parent domain).
      const planted = await client.post('/settings/login', { password: PASSWORD, nonce }, `agw_login_nonce=${nonce}`);
      expect(planted.status).to.equal(403);
      expect(planted.body).to.contain('does not match its cookie (__Host-agw_login_nonce)');
      expect(planted.cookies.join('\n')).not.to.contain('agw_session=');
      // A session planted under the bare name is no session.
      const signedIn = await client.post('/settings/login', { password: PASSWORD, nonce }, `__Host-agw_login_nonce=${nonce}`);
      const token = pair(signedIn, '__Host-agw_session')!.slice('__Host-agw_session='.length);
      const session = await auth.session(token);
      const bare = await client.post('/settings/logout', { csrf: session!.csrfToken }, `agw_session=${token}`);
      expect(bare.status).to.equal(401);
      expect(await auth.session(token), 'still signed in').not.to.equal(null);
      const reason = await client.get('/settings/login', 'agw_login=unauthorized');
      expect(reason.body).not.to.contain('Wrong password.');
    });

    it('keeps the bare names when the proxy says plain HTTP', async () => {
      await expectCookies(browser(false, { 'x-forwarded-proto': 'http' }), '', { path: (own) => own, secure: '' });
    });
  });

  describe('over TLS of its own', () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'agw-admin-tls-'));
      const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
      await promisify(execFile)('openssl', [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost',
      ]);
      secureTransport = { key: await readFile(key), cert: await readFile(cert) };
    });
    after(() => rm(dir, { recursive: true, force: true }));
    beforeEach(() => start('tls'));

    it('sets every cookie as a __Host- cookie: Secure, Path=/, no Domain', async () => {
      await expectCookies(browser(true), '__Host-', { path: () => '/', secure: '; secure' });
    });
  });
});
