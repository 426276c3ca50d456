import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { pino } from 'pino';
import { adminHostsOf, isAdminHost, type AdminHosts } from '../../../src/adapters/http/admin/admin-host.js';
import type { AdminUiDependencies } from '../../../src/adapters/http/admin/admin-ui.js';
import { createHttpApp, type HttpAppDependencies } from '../../../src/adapters/http/http-app.js';
import { ConfigError, loadConfig } from '../../../src/container/config.js';
import { ADMIN_PASSWORD as PASSWORD, adminAuthentication } from '../../support/admin-ui.js';
import { InMemoryLoginAttempts } from '../../fakes/in-memory-login-attempts.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';

/*
 * DNS rebinding: a page of another site (`http://evil.example:3000`) whose DNS answers the
 * service's address once the page is loaded (127.0.0.1) is same-origin with itself for the
 * browser. Its requests to /settings passed every check of the admin UI — its Origin is its own
 * Host, it reads the login page's nonce and gets its cookie — so it could post wrong passwords
 * until the admin's own address was refused for 15 minutes, and guess five passwords a window.
 * What gives it away is its name in `Host`: the admin UI answers only under its own names.
 */

const EVIL = 'evil.example';

const ONLY_OWN: AdminHosts = { names: [], any: false };

describe('admin UI: the host names it answers under', () => {
  describe('isAdminHost', () => {
    it('takes IP addresses, localhost and *.localhost, with or without a port, and the names given, in any case', () => {
      const hosts: AdminHosts = { names: ['gateway.lan'], any: false };
      for (const host of [
        '127.0.0.1',
        '127.0.0.1:3000',
        '10.0.0.9:80',
        '[::1]',
        '[::1]:3000',
        'localhost',
        'LOCALHOST:3000',
        'localhost.',
        'app.localhost:3000',
        'gateway.lan:3000',
        'Gateway.LAN',
        'gateway.lan.',
      ])
        expect(isAdminHost(host, hosts), host).to.equal(true);
    });

    it('refuses another name, a name that only ends like a given one, and a Host that is no host at all', () => {
      const hosts: AdminHosts = { names: ['gateway.lan'], any: false };
      for (const host of [
        `${EVIL}:3000`,
        EVIL,
        'evilgateway.lan',
        'gateway.lan.evil.example',
        'localhost.evil.example',
        '127.0.0.1.evil.example',
        '',
        ' ',
        'a b',
        'user@127.0.0.1',
        '127.0.0.1/x',
        '[::1',
        'exa mple',
      ])
        expect(isAdminHost(host, hosts), JSON.stringify(host)).to.equal(false);
    });

    it('takes any name when told so (ADMIN_HOSTS=*, or behind a trusted proxy)', () => {
      expect(isAdminHost(`${EVIL}:3000`, { names: [], any: true })).to.equal(true);
    });
  });

  describe('adminHostsOf', () => {
    it("takes the names of ADMIN_HOSTS and PUBLIC_URL's host; any name behind a trusted proxy only when ADMIN_HOSTS lists none", () => {
      const publicUrl = 'https://Gw.Example.com';
      expect(adminHostsOf({ adminHosts: ['gateway.lan'], publicUrl, trustedProxies: 0 })).to.deep.equal({
        names: ['gateway.lan', 'gw.example.com'],
        any: false,
      });
      expect(adminHostsOf({ adminHosts: [], trustedProxies: 1 }).any).to.equal(true);
      expect(adminHostsOf({ adminHosts: ['*'], trustedProxies: 0 }).any).to.equal(true);
      // Names given behind a proxy are kept: a rebound name passed on by the proxy is refused.
      const behindProxy = adminHostsOf({ adminHosts: ['admin.example.com'], trustedProxies: 1 });
      expect(isAdminHost(`${EVIL}:80`, behindProxy)).to.equal(false);
      expect(isAdminHost('admin.example.com', behindProxy)).to.equal(true);
    });
  });

  describe('ADMIN_HOSTS', () => {
    it('is a comma-separated list of host names, kept in lower case without a trailing dot; unset, none', () => {
      expect(loadConfig({}, '/srv/gw').adminHosts).to.deep.equal([]);
      expect(loadConfig({ ADMIN_HOSTS: ' Gateway.LAN., admin.example.com ,*' }, '/srv/gw').adminHosts).to.deep.equal(['gateway.lan', 'admin.example.com', '*']);
    });

    it('refuses an address with a scheme, a port or a path, naming it', () => {
      for (const value of ['https://gateway.lan', 'gateway.lan:3000', 'gateway.lan/settings', 'a_b.lan']) {
        let problem: unknown;
        try {
          loadConfig({ ADMIN_HOSTS: value }, '/srv/gw');
        } catch (error) {
          problem = error;
        }
        expect(problem, value).to.be.instanceOf(ConfigError);
        expect(String((problem as Error).message))
          .to.include('ADMIN_HOSTS')
          .and.to.include(`"${value}" is not a host name`);
      }
    });
  });

  describe('a rebinding page (the service behind another name)', () => {
    let server: Server;
    let port: number;
    let attempts: InMemoryLoginAttempts;
    let logger: RecordingLogger;

    const start = async (adminHosts: AdminHosts): Promise<void> => {
      attempts = new InMemoryLoginAttempts();
      logger = new RecordingLogger();
      const auth = await adminAuthentication({ attempts });
      // The service's own app: only the login page and the login are reached here.
      const admin = { auth, logger } as Partial<AdminUiDependencies> as AdminUiDependencies;
      const deps = {
        routes: [],
        credentialHeaders: [],
        pino: pino({ level: 'silent' }),
        metrics: { endpoint: () => (_ctx: unknown, next: () => Promise<void>) => next(), observe: () => undefined },
        admin,
        bodyLimit: 1024 * 1024,
        trustedProxies: 0,
        adminHosts,
      } as unknown as HttpAppDependencies;
      server = createServer(createHttpApp(deps).callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    };

    afterEach(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    /** One request with the Host header given (as the browser writes it for the name it used). */
    const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
      new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        });
        req.on('error', reject);
        req.end(body);
      });

    /** A login as the page under `host` posts it: its nonce cookie and field (when it got one), its Origin. */
    const login = async (host: string, password: string) => {
      const page = await send('GET', '/settings/login', { host });
      const cookie = ((page.headers['set-cookie'] as string[] | undefined) ?? []).map((line) => line.split(';')[0]).join('; ');
      const nonce = /name="nonce" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
      const answer = await send(
        'POST',
        '/settings/login',
        { host, origin: `http://${host}`, cookie, 'content-type': 'application/x-www-form-urlencoded' },
        new URLSearchParams({ nonce, password }).toString(),
      );
      return { page, answer };
    };

    it('gets no login page, and its logins are refused before they are counted: the admin can still log in', async () => {
      await start(ONLY_OWN);
      const host = `${EVIL}:${port}`;
      for (let i = 0; i < 6; i++) {
        const { page, answer } = await login(host, `guess number ${i}`);
        expect(page.status).to.equal(403);
        expect(page.body).not.to.include('name="nonce"');
        expect(page.headers['set-cookie']).to.equal(undefined);
        expect(page.headers['cache-control']).to.equal('no-store');
        expect(page.headers['x-frame-options']).to.equal('DENY');
        expect(answer.status).to.equal(403);
      }
      expect(attempts.windows.size, 'no login attempt was counted').to.equal(0);
      const refused = logger.entries.filter((entry) => entry.message === 'admin request under another host name refused');
      expect(refused).to.have.length(12);
      expect(refused[0].fields).to.include({ host, path: '/settings/login' });

      const own = await login(`127.0.0.1:${port}`, PASSWORD);
      expect(own.answer.status).to.equal(303);
      expect(own.answer.headers.location).to.equal('/settings/keys');
    });

    it('shows the name it was asked under escaped, on a page that says to add it to ADMIN_HOSTS', async () => {
      await start(ONLY_OWN);
      const page = await send('GET', '/settings/keys', { host: '<b>x</b>' });
      expect(page.status).to.equal(403);
      expect(page.body).to.include('ADMIN_HOSTS').and.to.include('&lt;b&gt;x&lt;/b&gt;').and.not.to.include('<b>x</b>');
    });

    it('answers under localhost, an IP address and a name of ADMIN_HOSTS; under any name when told so', async () => {
      await start({ names: ['gateway.lan'], any: false });
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `gateway.lan:${port}`])
        expect((await send('GET', '/settings/login', { host })).status, host).to.equal(200);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await start({ names: [], any: true });
      expect((await send('GET', '/settings/login', { host: `${EVIL}:${port}` })).status).to.equal(200);
    });

    it('leaves the other parts of the service alone', async () => {
      await start(ONLY_OWN);
      expect((await send('GET', '/healthz', { host: `${EVIL}:${port}` })).status).to.equal(200);
    });
  });
});
