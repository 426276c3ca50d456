import { expect } from 'chai';
import type { AdminUiDependencies } from '../../../src/adapters/http/admin/admin-ui.js';
import type { Schedule } from '../../../src/domain/schedules/schedule.js';
import { validateTriggers } from '../../../src/domain/triggers/validate-triggers.js';
import { triggerCatalog } from '../../../src/container/trigger-catalog.js';
import { adminAuthentication, adminSession, type LoopbackServer, serveAdminUi } from '../../support/admin-ui.js';

/*
 * A webhook action's URL often is its credential (an incoming-webhook path, a `?token=`): the
 * pages that list the actions of triggers and schedules name its target as shownWebhookTarget
 * does, and never show its headers.
 */

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
  let server: LoopbackServer;
  let base: string;
  let cookie: string;

  beforeEach(async () => {
    expect(problems).to.deep.equal([]);
    const auth = await adminAuthentication();
    const overview = {
      triggers: () => triggers,
      recentRuns: async () => [],
      reloadProblems: () => [],
      schedules: async () => [{ schedule, next: null, last: null }],
    };
    server = await serveAdminUi({ auth, overview } as unknown as AdminUiDependencies);
    base = server.base;
    ({ cookie } = await adminSession(base));
  });

  afterEach(() => server.close());

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
