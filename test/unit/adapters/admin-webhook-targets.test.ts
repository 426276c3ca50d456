import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { NodeApiKeyCrypto } from '../../../src/adapters/crypto/node-api-key-crypto.js';
import { ScryptPasswordHasher } from '../../../src/adapters/crypto/scrypt-password-hasher.js';
import { adminUi, type AdminUiDependencies } from '../../../src/adapters/http/admin/admin-ui.js';
import { AdminAuthentication } from '../../../src/application/auth/admin-authentication.js';
import type { Schedule } from '../../../src/domain/schedules/schedule.js';
import { validateTriggers } from '../../../src/domain/triggers/validate-triggers.js';
import { triggerCatalog } from '../../../src/container/trigger-catalog.js';
import { adminClient } from '../../support/admin-http.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryAdminStore } from '../../fakes/in-memory-admin-store.js';
import { InMemoryLoginAttempts } from '../../fakes/in-memory-login-attempts.js';
import { ManualTimer } from '../../fakes/manual-timer.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';

/*
 * A webhook action's URL often is its credential (an incoming-webhook path, a `?token=`): the
 * pages that list the actions of triggers and schedules name its target as shownWebhookTarget
 * does, and never show its headers.
 */

const PASSWORD = 'correct horse battery';

/** Every secret of the actions below; none may appear on a page. */
const SECRETS = ['SLACKPATHSECRET', 'DISCORDTOKENSECRET', 'QUERYSECRET', 'HEADERSECRET', 'T0SECRET', 'B0SECRET'];

const { triggers, problems } = validateTriggers(
  [
    {
      name: 'notify',
      watch_path: '/webhook',
      enabled: true,
      actions: [
        { type: 'webhook', url: 'https://hooks.slack.com/services/T0SECRET/B0SECRET/SLACKPATHSECRET' },
        { type: 'webhook', method: 'GET', url: 'https://discord.com/api/webhooks/123/DISCORDTOKENSECRET?wait=true' },
        { type: 'webhook', url: 'http://127.0.0.1:8080/hook?token=QUERYSECRET', headers: { Authorization: 'Bearer HEADERSECRET' } },
      ],
    },
  ],
  'test',
  triggerCatalog(),
);

const schedule: Schedule = { name: 'nightly', schedule: '0 3 * * *', enabled: true, catchUp: false, actions: triggers[0]?.actions ?? [] } as Schedule;

describe('admin UI: webhook targets', () => {
  let server: Server;
  let base: string;
  let cookie: string;

  beforeEach(async () => {
    expect(problems).to.deep.equal([]);
    const auth = new AdminAuthentication(
      new InMemoryAdminStore(),
      new InMemoryLoginAttempts(),
      new ScryptPasswordHasher(2 ** 10),
      new NodeApiKeyCrypto(),
      new SequentialIds(),
      new FixedClock(),
      new ManualTimer(),
    );
    await auth.setPassword(PASSWORD);
    const overview = {
      triggers: () => triggers,
      recentRuns: async () => [],
      reloadProblems: () => [],
      schedules: async () => [{ schedule, next: null, last: null }],
    };
    const deps = { auth, logger: new RecordingLogger(), overview } as unknown as AdminUiDependencies;
    const app = new Koa();
    app.silent = true;
    app.use(adminUi(deps));
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const login = await adminClient(base).post('/settings/login', { password: PASSWORD });
    expect(login.status).to.equal(303);
    cookie = `agw_session=${/agw_session=([^;]+)/.exec(login.headers.getSetCookie().join('\n'))?.[1]}`;
  });

  afterEach(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  for (const [page, path] of [
    ['triggers', '/settings/triggers'],
    ['schedules', '/settings/schedules'],
  ] as const) {
    it(`names each webhook's target on the ${page} page by scheme and host, without its path, query or headers`, async () => {
      const response = await fetch(`${base}${path}`, { headers: { cookie } });
      expect(response.status).to.equal(200);
      const html = await response.text();
      expect(html).to.contain('webhook POST https://hooks.slack.com/…');
      expect(html).to.contain('webhook GET https://discord.com/…');
      expect(html).to.contain('webhook POST http://127.0.0.1:8080/…');
      for (const secret of SECRETS) expect(html).to.not.contain(secret);
      expect(html).to.not.contain('/services/').and.to.not.contain('token=');
    });
  }
});
