import { expect } from 'chai';
import { connect } from 'node:net';
import { join } from 'node:path';
import { MAX_FAILURES } from '../../src/application/auth/admin-authentication.js';
import { adminClient, cookieFrom, loginNonce, setAdminPassword as setPassword } from '../support/admin-http.js';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';

const PASSWORD = 'a long admin password';

/**
 * A POST of a form written by hand in two parts: the headers (with `Expect: 100-continue`) and
 * the body's first `first` bytes at once; `continued` resolves when the server answers 100
 * Continue (it has taken the headers), `finish` sends the rest and resolves with the answer.
 */
const slowForm = (port: number, path: string, cookie: string, form: string, first: number) => {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let continued: () => void = () => undefined;
  const continuedPromise = new Promise<void>((resolve) => (continued = resolve));
  const closed = new Promise<{ status: number; headers: Record<string, string>; body: string }>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks)
        .toString('utf8')
        .replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const name = line.slice(0, line.indexOf(':')).toLowerCase();
        headers[name] = [headers[name], line.slice(line.indexOf(':') + 1).trim()].filter(Boolean).join(', ');
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? 0), headers, body: rest.join('\r\n\r\n') });
    });
  });
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    if (Buffer.concat(chunks).toString('latin1').startsWith('HTTP/1.1 100 Continue\r\n\r\n')) continued();
  });
  const body = Buffer.from(form);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\nCookie: ${cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  socket.write(body.subarray(0, first));
  return {
    continued: continuedPromise,
    finish: () => {
      socket.write(body.subarray(first));
      return closed;
    },
  };
};

describe('e2e: admin UI over HTTP, before the first password', function () {
  this.timeout(60_000);
  let gateway: GatewayProcess | undefined;
  let env: Record<string, string>;
  before(async () => {
    const dir = await migratedDataDir('admin-closed');
    env = { DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json') };
    gateway = await startGateway(env);
  });
  after(() => gateway?.stop());

  it('stays closed until an admin password is set, then asks for a login', async () => {
    const { get } = adminClient(gateway!.url);
    const closed = await get('/settings');
    expect(closed.status).to.equal(503);
    const page = await closed.text();
    expect(page).to.contain('admin set-password');
    expect(page, 'no script on a page without a session').not.to.contain('<script');
    expect(await setPassword(env, 'too short')).to.equal(1);
    expect(await setPassword(env, PASSWORD)).to.equal(0);
    const response = await get('/settings/keys');
    expect(response.status).to.equal(303);
    expect(response.headers.get('location')).to.equal('/settings/login');
  });
});

/** Drives /settings over HTTP as a browser would (cookies by hand, forms url-encoded, no redirects followed). */
describe('e2e: admin UI over HTTP', function () {
  this.timeout(60_000);
  let gateway: GatewayProcess;
  let env: Record<string, string>;

  const get = (path: string, cookie = '', headers: Record<string, string> = {}) => adminClient(gateway.url).get(path, cookie, headers);
  const post = (path: string, form: Record<string, string>, cookie = '') => adminClient(gateway.url).post(path, form, cookie);
  const login = () => adminClient(gateway.url).login(PASSWORD);

  before(async () => {
    const dir = await migratedDataDir('admin');
    // No LLM_PROVIDER: the web chat has no AI provider.
    env = { DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json') };
    gateway = await startGateway(env);
    expect(await setPassword(env, PASSWORD)).to.equal(0);
  });
  after(() => gateway?.stop());

  it('refuses a wrong password (303 back to the form, which says why once) and sets an HttpOnly, SameSite=Strict session cookie for the right one', async () => {
    const refused = await post('/settings/login', { password: 'wrong password!!' });
    expect(refused.status).to.equal(303);
    expect(refused.headers.get('location')).to.equal('/settings/login');
    expect(cookieFrom(refused, 'agw_session'), 'no session for a wrong password').to.equal(undefined);
    const reason = cookieFrom(refused, 'agw_login')!;
    expect(await (await get('/settings/login', reason)).text()).to.contain('<p class="error" role="alert">Wrong password.</p>');
    expect(await (await get('/settings/login')).text()).not.to.contain('Wrong password');
    await gateway.logLine(
      (line) => line.msg === 'admin login refused' && line.reason === 'unauthorized' && line.reqId === refused.headers.get('x-request-id'),
      '"admin login refused" (unauthorized) of the refused login',
    );
    const response = await post('/settings/login', { password: PASSWORD });
    expect(response.status).to.equal(303);
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).to.match(/^agw_session=[0-9a-f]{64}; path=\/settings; expires=.+; samesite=strict; httponly$/);
  });

  it('creates a key shown once that works against the API, and revokes it', async () => {
    const { cookie, csrf } = await login();
    const created = await post('/settings/keys', { csrf, name: 'from the UI' }, cookie);
    expect(created.status).to.equal(201);
    const key = /id="new-key">([^<]+)</.exec(await created.text())![1];
    const call = () => fetch(`${gateway.url}/api/jobs/status`, { headers: { 'x-api-key': key } });
    expect((await call()).status).to.equal(200);
    const list = await (await get('/settings/keys', cookie)).text();
    expect(list).to.contain('from the UI').and.not.to.contain(key);
    const id = /\/settings\/keys\/([0-9a-f-]{36})\/revoke/.exec(list)![1];
    expect(await (await get(`/settings/keys/${id}/revoke`, cookie)).text()).to.contain('Revoke <strong>from the UI</strong>');
    const revoked = await post(`/settings/keys/${id}/revoke`, { csrf }, cookie);
    expect(revoked.status).to.equal(303);
    expect(revoked.headers.get('location')).to.equal('/settings/keys');
    expect((await call()).status).to.equal(401);
  });

  it('revokes a key through an address with its id in upper case, and says so (not "revoked already")', async () => {
    const { cookie, csrf } = await login();
    const created = await post('/settings/keys', { csrf, name: 'upper case' }, cookie);
    const key = /id="new-key">([^<]+)</.exec(await created.text())![1];
    const list = await (await get('/settings/keys', cookie)).text();
    const id = /upper case[\s\S]*?\/settings\/keys\/([0-9a-f-]{36})\/revoke/.exec(list)![1];
    const revoked = await post(`/settings/keys/${id.toUpperCase()}/revoke`, { csrf }, cookie);
    expect(revoked.status).to.equal(303);
    const flash = cookieFrom(revoked, 'agw_flash');
    expect(await (await get('/settings/keys', `${cookie}; ${flash}`)).text())
      .to.contain('Key upper case revoked')
      .and.not.to.contain('revoked already');
    expect((await fetch(`${gateway.url}/api/jobs/status`, { headers: { 'x-api-key': key } })).status).to.equal(401);
  });

  it("refuses a form without the session's CSRF token", async () => {
    const { cookie } = await login();
    expect((await post('/settings/keys', { name: 'forged' }, cookie)).status).to.equal(403);
    expect((await post('/settings/keys', { name: 'forged', csrf: 'guess' }, cookie)).status).to.equal(403);
    expect(await (await get('/settings/keys', cookie)).text()).not.to.contain('forged');
  });

  it('marks the cookie Secure when a trusted proxy says the request came over HTTPS', async () => {
    const dir = await migratedDataDir('admin-proxy');
    const proxied = { DATA_DIR: dir, TRIGGERS_FILE: join(dir, 'none.json'), TRUST_PROXY: 'true' };
    const behindProxy = await startGateway(proxied);
    try {
      expect(await setPassword(proxied, PASSWORD)).to.equal(0);
      const overHttps = { 'x-forwarded-proto': 'https' };
      const secureNonce = await loginNonce(behindProxy.url, overHttps);
      const response = await fetch(`${behindProxy.url}/settings/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: secureNonce.cookie, ...overHttps },
        body: new URLSearchParams({ password: PASSWORD, nonce: secureNonce.nonce }).toString(),
        redirect: 'manual',
      });
      expect(response.headers.get('set-cookie')).to.match(/; secure; httponly$/);
      const { cookie: nonceCookie, nonce } = await loginNonce(behindProxy.url);
      // Login limits count the address the proxy appended to X-Forwarded-For, not the ones the
      // client wrote before it: a client changing its own at each attempt is still limited.
      const attempt = (spoofed: string) =>
        fetch(`${behindProxy.url}/settings/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: nonceCookie, 'x-forwarded-for': `${spoofed}, 203.0.113.7` },
          body: new URLSearchParams({ password: 'a wrong guess!', nonce }).toString(),
          redirect: 'manual',
        });
      for (let i = 1; i <= MAX_FAILURES + 1; i++) expect((await attempt(`10.0.0.${i}`)).status).to.equal(303);
      const limited = await attempt('10.0.0.99');
      expect(limited.status).to.equal(303);
      const page = await adminClient(behindProxy.url).get('/settings/login', cookieFrom(limited, 'agw_login')!);
      expect(await page.text()).to.contain('Too many failed logins');
      // A proxy that appends the client's port as well: each connection is the same client.
      const withPort = (forwardedFor: string) =>
        fetch(`${behindProxy.url}/settings/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: nonceCookie, 'x-forwarded-for': forwardedFor },
          body: new URLSearchParams({ password: 'a wrong guess!', nonce }).toString(),
          redirect: 'manual',
        });
      for (let i = 1; i <= MAX_FAILURES; i++) expect((await withPort(`10.0.0.1, 203.0.113.8:${50_000 + i}`)).status).to.equal(303);
      const sameClient = await withPort('203.0.113.8:61000');
      const refused = await adminClient(behindProxy.url).get('/settings/login', cookieFrom(sameClient, 'agw_login')!);
      expect(await refused.text()).to.contain('Too many failed logins');
    } finally {
      await behindProxy.stop();
    }
  });

  it('leaves nothing reachable after logout: pages, static files, actions', async () => {
    const { cookie, csrf } = await login();
    expect((await get('/settings/static/ui.js', cookie)).status).to.equal(200);
    expect((await get('/settings/static/htmx.min.js', cookie)).status).to.equal(200);
    expect((await post('/settings/logout', { csrf }, cookie)).status).to.equal(303);
    for (const path of ['/settings', '/settings/keys', '/settings/static/ui.js', '/settings/static/htmx.min.js']) {
      expect((await get(path, cookie)).status, path).to.equal(303);
    }
    expect((await post('/settings/keys', { csrf, name: 'after logout' }, cookie)).status).to.equal(401);
  });

  for (const [how, end] of [
    ['a logout', (cookie: string, csrf: string) => post('/settings/logout', { csrf }, cookie).then((answer) => expect(answer.status).to.equal(303))],
    ['a new password', () => setPassword(env, PASSWORD).then((code) => expect(code).to.equal(0))],
  ] as const) {
    it(`takes no form whose session ended (${how}) while its body was on its way: no key is made or shown`, async () => {
      const { cookie, csrf } = await login();
      const name = `late-key-${how.replace(/ /g, '-')}`;
      const form = new URLSearchParams({ csrf, name }).toString();
      // The headers and the body's first bytes; `Expect: 100-continue` says when the server took
      // the headers (its session check then runs, and passes: the session still exists).
      const late = slowForm(gateway.port, '/settings/keys', cookie, form, 5);
      await late.continued;
      // Another request of the session, answered after that check: the session is still live.
      expect((await get('/settings/keys', cookie)).status).to.equal(200);
      await end(cookie, csrf);
      const answer = await late.finish();
      expect(answer.status, answer.body).to.equal(401);
      expect(answer.body).to.contain('Your session has ended; log in again.');
      expect(answer.body, 'no key shown').not.to.contain('id="new-key"');
      const again = await login();
      expect(await (await get('/settings/keys', again.cookie)).text()).not.to.contain(name);
    });
  }

  it('shows the login page without any script (it used to load one that failed without a session)', async () => {
    const page = await (await get('/settings/login')).text();
    expect(page).to.contain('Admin password').and.not.to.contain('<script');
  });

  it('answers a web chat message without an AI provider with a redirect, then names the missing setting once and logs the cause under the request id', async () => {
    const { cookie, csrf } = await login();
    const sent = await post('/settings/chat', { csrf, message: 'Hello?' }, cookie);
    expect(sent.status).to.equal(303);
    expect(sent.headers.get('location')).to.equal('/settings/chat');
    const requestId = sent.headers.get('x-request-id')!;
    const flash = cookieFrom(sent, 'agw_flash')!;
    const page = await (await get('/settings/chat', `${cookie}; ${flash}`)).text();
    expect(page).to.contain('role="alert"').and.to.contain('The chat has no AI provider to ask: No LLM provider is configured (LLM_PROVIDER).');
    expect(page).to.contain(`request id ${requestId}`);
    expect(await (await get('/settings/chat', cookie)).text()).not.to.contain('No LLM provider is configured');
    const logged = await gateway.logLine(
      (line) => line.msg === 'web chat message could not be answered' && line.reqId === requestId,
      `"web chat message could not be answered" of request ${requestId}`,
    );
    expect(logged, 'the log line of the failure').to.include({ reason: 'not_configured' });
  });

  describe('malformed requests: every one is a 4xx admin page, never a 500 or JSON', () => {
    /** Status, and that the answer is an admin HTML page; returns the page's text. */
    const adminPage = async (response: Response, status: number, what: string): Promise<string> => {
      const text = await response.text();
      expect(response.status, `${what}: ${text.slice(0, 300)}`).to.equal(status);
      expect(response.headers.get('content-type'), what).to.equal('text/html; charset=utf-8');
      expect(text, what)
        .to.match(/^<!doctype html>/)
        .and.to.contain('Agent Gateway</title>');
      return text;
    };
    const raw = (path: string, cookie: string, headers: Record<string, string>, body: string | Uint8Array) =>
      fetch(`${gateway.url}${path}`, { method: 'POST', headers: { cookie, ...headers }, body, redirect: 'manual' });

    it('answers a malformed percent-encoding in every parameterised path, GET and POST, with a 4xx page', async () => {
      const { cookie, csrf } = await login();
      const bad = '%E0%A4%A';
      const revoke = `/settings/keys/${bad}/revoke`;
      expect(await adminPage(await get(revoke, cookie), 400, `GET ${revoke}`)).to.contain('The address has a malformed percent-encoding');
      expect(await adminPage(await post(revoke, { csrf }, cookie), 400, `POST ${revoke}`)).to.contain('The address has a malformed percent-encoding');
      await adminPage(await get(`/settings/jobs/${bad}`, cookie), 404, 'GET job page');
      await adminPage(await post(`/settings/jobs/${bad}/cancel`, { csrf }, cookie), 404, 'POST job cancel');
    });

    it('answers a revoke of an address that names no key id with a 404 page saying so (not "revoked already"), GET and POST, and one of an unknown key id as revoked already', async () => {
      const { cookie, csrf } = await login();
      for (const id of ['not-a-uuid', '12345', 'ffffffff-ffff-ffff-ffff-ffffffffffffff']) {
        const page = await adminPage(await post(`/settings/keys/${id}/revoke`, { csrf }, cookie), 404, `POST revoke ${id}`);
        expect(page, id).to.contain('No such key: the address names no key id.').and.not.to.contain('revoked already');
        const confirmation = await adminPage(await get(`/settings/keys/${id}/revoke`, cookie), 404, `GET revoke ${id}`);
        expect(confirmation, id).to.contain('No such key: the address names no key id.').and.not.to.contain('revoked already');
      }
      const unknownPage = await adminPage(await get('/settings/keys/00000000-0000-4000-8000-000000000000/revoke', cookie), 404, 'GET revoke unknown key id');
      expect(unknownPage).to.contain('No such key: it may have been revoked already.');
      const unknown = await post('/settings/keys/00000000-0000-4000-8000-000000000000/revoke', { csrf }, cookie);
      expect(unknown.status).to.equal(303);
      const flash = cookieFrom(unknown, 'agw_flash');
      expect(flash, 'a notice for the keys page').not.to.equal(undefined);
      expect(await (await get('/settings/keys', `${cookie}; ${flash}`)).text()).to.contain('That key was revoked already.');
    });

    it('answers a login form or a signed-in form over 16 KiB with a 413 page', async () => {
      const big = 'x'.repeat(17 * 1024);
      expect(await adminPage(await post('/settings/login', { password: big }), 413, 'login')).to.contain('Request body is larger than 16384 bytes');
      const { cookie, csrf } = await login();
      await adminPage(await post('/settings/keys', { csrf, name: big }, cookie), 413, 'create key');
      expect(await (await get('/settings/keys', cookie)).text()).not.to.contain('xxxxxxxx');
    });

    it('answers a form of another content type with a 415 page, and a corrupt compressed form with a 400 page', async () => {
      const json = { 'content-type': 'application/json' };
      expect(await adminPage(await raw('/settings/login', '', json, JSON.stringify({ password: PASSWORD })), 415, 'login as JSON')).to.contain(
        'Content-Type must be application/x-www-form-urlencoded',
      );
      const { cookie, csrf } = await login();
      await adminPage(await raw('/settings/keys', cookie, json, JSON.stringify({ csrf, name: 'as json' })), 415, 'create key as JSON');
      const form = { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' };
      await adminPage(await raw('/settings/keys', cookie, form, 'not gzip at all'), 400, 'corrupt gzip');
      expect(await (await get('/settings/keys', cookie)).text()).not.to.contain('as json');
    });

    it('answers a form whose percent-encoding is not UTF-8 with a 400 page naming the field, and one in another charset with a 415 page; no key is made', async () => {
      const { cookie, csrf } = await login();
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      for (const name of ['%ff', '%ED%A0%BD', '%C0%AF', 'cut%E2%82']) {
        const page = await adminPage(await raw('/settings/keys', cookie, form, `csrf=${csrf}&name=${name}`), 400, `name=${name}`);
        expect(page, name).to.contain('Invalid form body: the value of field &quot;name&quot; is not valid UTF-8 once percent-decoded');
      }
      const badName = await adminPage(await raw('/settings/keys', cookie, form, `csrf=${csrf}&%ff=1&name=bad-field-name`), 400, 'field name %ff');
      expect(badName).to.contain('the field name &quot;%ff&quot; is not valid UTF-8');
      const latin1 = Buffer.from(`csrf=${csrf}&name=r\xe9sum\xe9-key`, 'latin1');
      await adminPage(await raw('/settings/keys', cookie, form, latin1), 400, 'raw Latin-1 bytes');
      const declared = { 'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1' };
      expect(await adminPage(await raw('/settings/keys', cookie, declared, `csrf=${csrf}&name=r%E9sum%E9-key`), 415, 'charset=iso-8859-1')).to.contain(
        'Unsupported charset iso-8859-1: send the form as UTF-8',
      );
      const keys = await (await get('/settings/keys', cookie)).text();
      expect(keys).not.to.match(/bad-field-name|sum.*-key|%ff|\ufffd/);
    });

    it('answers an unknown path with a 404 page and an unknown method with a 405 page', async () => {
      const { cookie } = await login();
      await adminPage(await get('/settings/nothing-here', cookie), 404, 'unknown path');
      await adminPage(await get('/settings/%FF%FE', cookie), 404, 'unknown path with bad encoding');
      await adminPage(await fetch(`${gateway.url}/settings/keys`, { method: 'PUT', headers: { cookie }, redirect: 'manual' }), 405, 'PUT');
      await adminPage(await fetch(`${gateway.url}/settings/login`, { method: 'DELETE', redirect: 'manual' }), 405, 'DELETE login');
    });
  });
});
