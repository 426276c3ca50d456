import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { NodeApiKeyCrypto } from '../../src/adapters/crypto/node-api-key-crypto.js';
import { ScryptPasswordHasher } from '../../src/adapters/crypto/scrypt-password-hasher.js';
import { adminUi, type AdminUiDependencies } from '../../src/adapters/http/admin/admin-ui.js';
import { AdminAuthentication } from '../../src/application/auth/admin-authentication.js';
import type { Clock } from '../../src/ports/clock.js';
import type { IdGenerator } from '../../src/ports/id-generator.js';
import type { LoginAttempts } from '../../src/ports/login-attempts.js';
import { FixedClock } from '../fakes/fixed-clock.js';
import { InMemoryAdminStore } from '../fakes/in-memory-admin-store.js';
import { InMemoryLoginAttempts } from '../fakes/in-memory-login-attempts.js';
import { ManualTimer } from '../fakes/manual-timer.js';
import { RecordingLogger } from '../fakes/recording-logger.js';
import { SequentialIds } from '../fakes/sequential-ids.js';
import { adminClient } from './admin-http.js';

/*
 * The admin UI's unit-test harness: its authentication on in-memory fakes, the UI served on a
 * loopback port, and a session logged in through its form.
 */

export const ADMIN_PASSWORD = 'correct horse battery';

/**
 * An AdminAuthentication on in-memory fakes (a cheap scrypt) with ADMIN_PASSWORD set; the login
 * attempts, ids and clock given are used, for tests that read or share them.
 */
export const adminAuthentication = async (parts: { attempts?: LoginAttempts; ids?: IdGenerator; clock?: Clock } = {}): Promise<AdminAuthentication> => {
  const auth = new AdminAuthentication(
    new InMemoryAdminStore(),
    parts.attempts ?? new InMemoryLoginAttempts(),
    new ScryptPasswordHasher(2 ** 10),
    new NodeApiKeyCrypto(),
    parts.ids ?? new SequentialIds(),
    parts.clock ?? new FixedClock(),
    new ManualTimer(),
  );
  await auth.setPassword(ADMIN_PASSWORD);
  return auth;
};

export interface LoopbackServer {
  readonly server: Server;
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  close(): Promise<void>;
}

/** Serves `listener` on 127.0.0.1 on a free port (over TLS with `tls`' key and certificate). */
export const serveOnLoopback = async (listener: RequestListener, tls?: { key: Buffer; cert: Buffer }): Promise<LoopbackServer> => {
  const server: Server = tls === undefined ? createServer(listener) : createHttpsServer(tls, listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { server, port, base: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

/**
 * The admin UI alone in a silent Koa app, served on loopback. `deps` needs only what the test
 * reaches (`auth` always); the logger defaults to a RecordingLogger. `proxy` trusts X-Forwarded-*.
 */
export const serveAdminUi = async (
  deps: Partial<AdminUiDependencies>,
  options: { proxy?: boolean; tls?: { key: Buffer; cert: Buffer } } = {},
): Promise<LoopbackServer> => {
  const app = new Koa();
  app.silent = true;
  app.proxy = options.proxy ?? false;
  app.use(adminUi({ logger: new RecordingLogger(), ...deps } as AdminUiDependencies));
  return serveOnLoopback(app.callback(), options.tls);
};

/** Logs in with ADMIN_PASSWORD through the login form (nonce and all): the session's token and its `agw_session=` cookie. */
export const adminSession = async (base: string): Promise<{ token: string; cookie: string }> => {
  const login = await adminClient(base).post('/settings/login', { password: ADMIN_PASSWORD });
  expect(login.status).to.equal(303);
  const token = /agw_session=([^;]+)/.exec(login.headers.getSetCookie().join('\n'))?.[1] as string;
  return { token, cookie: `agw_session=${token}` };
};
