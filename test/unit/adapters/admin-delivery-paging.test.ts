import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DeliveryHistory } from '../../../src/application/triggers/delivery-history.js';
import { adminAuthentication, adminSession, type LoopbackServer, serveAdminUi } from '../../support/admin-ui.js';
import { InMemoryActionRunRepository } from '../../fakes/in-memory-action-run-repository.js';
import { InMemoryInboundRequestStore } from '../../fakes/in-memory-inbound-request-store.js';

/*
 * The Deliveries page's "Older deliveries" link goes on right after the last row shown, by its
 * time and id: deliveries received in the same millisecond as that row (common under load) are
 * on the next page, and every stored delivery is listed once across the pages.
 */

describe('admin UI: paging the deliveries', () => {
  let server: LoopbackServer;
  let base: string;
  let requests: InMemoryInboundRequestStore;
  let cookie: string;

  beforeEach(async () => {
    requests = new InMemoryInboundRequestStore();
    server = await serveAdminUi({ auth: await adminAuthentication(), deliveries: new DeliveryHistory(requests, new InMemoryActionRunRepository()) });
    base = server.base;
    ({ cookie } = await adminSession(base));
  });

  afterEach(() => server.close());

  const record = (receivedAt: Date, watchPath = '/webhook') =>
    requests.record({ id: randomUUID(), watchPath, receivedAt, request: '{}', triggers: ['deploy'], runs: [], replayOf: null });

  /** The ids a page lists, and its "Older deliveries" link (unescaped), or null. */
  const shown = async (href: string): Promise<{ ids: string[]; older: string | null }> => {
    const response = await fetch(`${base}${href}`, { headers: { cookie } });
    expect(response.status, href).to.equal(200);
    const html = await response.text();
    const ids = [...html.matchAll(/<a href="\/settings\/deliveries\/([0-9a-f-]{36})">/g)].map((match) => match[1]);
    const older = /<a href="([^"]*)">Older deliveries<\/a>/.exec(html)?.[1].replaceAll('&amp;', '&') ?? null;
    return { ids, older };
  };

  /** Every id listed from `href` on, following the Older links. */
  const everyPage = async (href: string): Promise<string[]> => {
    const listed: string[] = [];
    let next: string | null = href;
    while (next !== null) {
      const page = await shown(next);
      listed.push(...page.ids);
      next = page.older;
    }
    return listed;
  };

  /** The stored ids in the list's order: newest first, then by id, descending. */
  const expected = (watchPath?: string) =>
    [...requests.requests.values()]
      .filter((request) => watchPath === undefined || request.watchPath === watchPath)
      .sort((a, b) => b.receivedAt.getTime() - a.receivedAt.getTime() || (a.id < b.id ? 1 : -1))
      .map((request) => request.id);

  it('lists every delivery exactly once across the Older links, 100 of them received in one millisecond', async () => {
    const same = new Date('2026-11-24T10:00:00.123Z');
    for (let i = 0; i < 10; i++) await record(new Date(same.getTime() + 1 + i));
    for (let i = 0; i < 100; i++) await record(same);
    for (let i = 0; i < 10; i++) await record(new Date(same.getTime() - 1 - i));
    const first = await shown('/settings/deliveries');
    expect(first.ids).to.have.length(50);
    expect(first.older).to.match(/[?&]before_id=[0-9a-f-]{36}(&|$)/);
    const listed = await everyPage('/settings/deliveries');
    expect(listed).to.have.length(120);
    expect(listed).to.deep.equal(expected());
  });

  it('keeps the path filter on the Older link, and pages by time alone from a link made before (before without before_id)', async () => {
    const same = new Date('2026-11-24T10:00:00.123Z');
    for (let i = 0; i < 60; i++) await record(same, '/webhook');
    for (let i = 0; i < 5; i++) await record(same, '/other');
    await record(new Date(same.getTime() - 1), '/webhook');
    expect(await everyPage('/settings/deliveries?path=%2Fwebhook')).to.deep.equal(expected('/webhook'));
    const byTime = await shown(`/settings/deliveries?before=${encodeURIComponent(same.toISOString())}`);
    expect(byTime.ids).to.deep.equal([expected('/webhook').at(-1)]);
    expect(
      (await fetch(`${base}/settings/deliveries?before=${encodeURIComponent(same.toISOString())}&before_id=nope`, { headers: { cookie } })).status,
    ).to.equal(400);
  });
});
