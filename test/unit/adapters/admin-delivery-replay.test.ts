import { expect } from 'chai';
import { DeliveryHistory } from '../../../src/application/triggers/delivery-history.js';
import { FireTriggers, type TriggerRunTask } from '../../../src/application/triggers/fire-triggers.js';
import { snapshotRequest } from '../../../src/domain/templates/request-snapshot.js';
import { validateTriggers } from '../../../src/domain/triggers/validate-triggers.js';
import { triggerCatalog } from '../../../src/container/trigger-catalog.js';
import { adminAuthentication, adminSession, type LoopbackServer, serveAdminUi } from '../../support/admin-ui.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryActionRunRepository } from '../../fakes/in-memory-action-run-repository.js';
import { InMemoryInboundRequestStore } from '../../fakes/in-memory-inbound-request-store.js';
import { InMemoryTaskQueue } from '../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../fakes/in-memory-trigger-lanes.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';

/*
 * The admin page's Replay replays once per page shown: the form carries a nonce, and the same
 * form sent again (a double click, the page in two tabs, a resend) replays nothing more and
 * shows the replay it made. A form without a nonce (a page shown before) replays as before.
 */

describe('admin UI: replaying a delivery', () => {
  let server: LoopbackServer;
  let base: string;
  let requests: InMemoryInboundRequestStore;
  let queue: InMemoryTaskQueue;
  let original: string;
  let cookie: string;
  let csrf: string;

  beforeEach(async () => {
    const ids = new SequentialIds();
    const clock = new FixedClock();
    const auth = await adminAuthentication({ ids, clock });
    const triggers = validateTriggers(
      [{ name: 'build', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] }],
      'test',
      triggerCatalog(),
    ).triggers;
    requests = new InMemoryInboundRequestStore();
    queue = new InMemoryTaskQueue();
    const fireTriggers = new FireTriggers(triggers, requests, queue, ids, clock, new RecordingLogger(), new InMemoryTriggerLanes());
    await fireTriggers.execute({ watchPath: '/webhook', request: snapshotRequest({ ref: 'main' }, {}, {}) });
    await fireTriggers.dispatched();
    [original] = requests.requests.keys();
    server = await serveAdminUi({ auth, deliveries: new DeliveryHistory(requests, new InMemoryActionRunRepository()), fireTriggers });
    base = server.base;
    const session = await adminSession(base);
    cookie = session.cookie;
    csrf = (await auth.session(session.token))!.csrfToken;
  });

  afterEach(() => server.close());

  /** The nonce of the replay form on the delivery's page, as shown now. */
  const shownNonce = async (id: string): Promise<string> => {
    const page = await fetch(`${base}/settings/deliveries/${id}`, { headers: { cookie } });
    expect(page.status).to.equal(200);
    const nonce = /<input type="hidden" name="nonce" value="([^"]*)">/.exec(await page.text())?.[1];
    expect(nonce).to.match(/^[0-9a-f]{32}$/);
    return nonce!;
  };
  const replay = (form: Record<string, string>) =>
    fetch(`${base}/settings/deliveries/${original}/replay`, { method: 'POST', body: new URLSearchParams(form), headers: { cookie }, redirect: 'manual' });
  const replays = () => [...requests.requests.values()].filter((request) => request.replayOf === original);
  const queuedFor = (id: string) => queue.tasks.filter((task) => (task.payload as TriggerRunTask).requestId === id).length;

  it('replays once when the same form is sent three times at once, every answer showing that replay', async () => {
    const nonce = await shownNonce(original);
    const answers = await Promise.all([1, 2, 3].map(() => replay({ csrf, nonce })));
    expect(answers.map((answer) => answer.status)).to.deep.equal([303, 303, 303]);
    expect(replays(), 'one replay stored').to.have.length(1);
    const [made] = replays();
    expect(queuedFor(made.id), 'its run queued once').to.equal(1);
    expect(new Set(answers.map((answer) => answer.headers.get('location')))).to.deep.equal(new Set([`/settings/deliveries/${made.id}`]));
    // Sent again later (a resend of the page), still the same replay.
    const later = await replay({ csrf, nonce });
    expect(later.headers.get('location')).to.equal(`/settings/deliveries/${made.id}`);
    const flash = /agw_flash=[^;]+/.exec(later.headers.getSetCookie().join('\n'))?.[0];
    const shown = await (await fetch(`${base}${later.headers.get('location')}`, { headers: { cookie: `${cookie}; ${flash}` } })).text();
    expect(shown).to.contain('Replayed once already from this page');
    expect(replays()).to.have.length(1);
  });

  it('replays again from a page shown again (a new nonce), and once per post without a nonce (a page shown before) or with a malformed one', async () => {
    await replay({ csrf, nonce: await shownNonce(original) });
    await replay({ csrf, nonce: await shownNonce(original) });
    expect(replays()).to.have.length(2);
    for (const form of [{ csrf }, { csrf }, { csrf, nonce: 'not hex' }] as Array<Record<string, string>>) expect((await replay(form)).status).to.equal(303);
    expect(replays()).to.have.length(5);
    for (const made of replays()) expect(queuedFor(made.id)).to.equal(1);
  });
});
