import { expect } from 'chai';
import { DecideApproval } from '../../../src/application/approvals/decide-approval.js';
import { FireTriggers } from '../../../src/application/triggers/fire-triggers.js';
import { triggerCatalog } from '../../../src/container/trigger-catalog.js';
import { actionFingerprint } from '../../../src/domain/triggers/action-fingerprint.js';
import type { Trigger } from '../../../src/domain/triggers/trigger.js';
import { validateTriggers } from '../../../src/domain/triggers/validate-triggers.js';
import { adminAuthentication, adminSession, type LoopbackServer, serveAdminUi } from '../../support/admin-ui.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryActionRunRepository } from '../../fakes/in-memory-action-run-repository.js';
import { InMemoryApprovalStore } from '../../fakes/in-memory-approval-store.js';
import { InMemoryInboundRequestStore } from '../../fakes/in-memory-inbound-request-store.js';
import { InMemoryTaskQueue } from '../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../fakes/in-memory-trigger-lanes.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';

/*
 * The admin page's notice after Approve says what runs: the action, or nothing when a reload
 * removed or disabled its trigger (or changed the action) since it asked.
 */

const APPROVAL = '10000000-0000-4000-8000-000000000001';
const RUN = '30000000-0000-4000-8000-000000000001';

const { triggers } = validateTriggers(
  [{ name: 'guarded', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'deploy', approval: true }] }],
  'test',
  triggerCatalog(),
);

describe('admin UI: approving an action', () => {
  let server: LoopbackServer;
  let base: string;
  let cookie: string;
  let csrf: string;
  let live: readonly Trigger[];

  beforeEach(async () => {
    const ids = new SequentialIds();
    const clock = new FixedClock();
    const auth = await adminAuthentication({ ids, clock });
    live = triggers;
    const approvals = new InMemoryApprovalStore();
    const runs = new InMemoryActionRunRepository();
    const logger = new RecordingLogger();
    await approvals.request({
      id: APPROVAL,
      runId: RUN,
      trigger: 'guarded',
      actionIndex: 0,
      actionType: 'command',
      summary: 'command: deploy',
      requestId: null,
      watchPath: '/webhook',
      firedAt: clock.now().toISOString(),
      status: 'pending',
      createdAt: clock.now(),
      expiresAt: new Date(clock.now().getTime() + 60_000),
      decidedBy: null,
      decidedAt: null,
    });
    await runs.save({
      runId: RUN,
      trigger: 'guarded',
      actionIndex: 0,
      type: 'command',
      status: 'awaiting_approval',
      attempts: 0,
      startedAt: clock.now(),
      finishedAt: clock.now(),
      error: null,
      detail: { approvalId: APPROVAL, action: actionFingerprint(triggers[0].actions[0]) },
    });
    const fire = new FireTriggers(
      { current: () => live },
      new InMemoryInboundRequestStore(),
      new InMemoryTaskQueue(),
      ids,
      clock,
      logger,
      new InMemoryTriggerLanes(),
    );
    server = await serveAdminUi({
      auth,
      logger,
      approvals,
      approvalTimeoutMs: 60_000,
      decideApproval: new DecideApproval(approvals, runs, fire, clock, logger),
    });
    base = server.base;
    const session = await adminSession(base);
    cookie = session.cookie;
    csrf = (await auth.session(session.token))!.csrfToken;
  });

  afterEach(() => server.close());

  /** Approves the action and returns the page the answer leads to, with its notice. */
  const approve = async (): Promise<string> => {
    const answer = await fetch(`${base}/settings/approvals/${APPROVAL}/approve`, {
      method: 'POST',
      body: new URLSearchParams({ csrf }),
      headers: { cookie },
      redirect: 'manual',
    });
    expect(answer.status).to.equal(303);
    const flash = /agw_flash=[^;]+/.exec(answer.headers.getSetCookie().join('\n'))?.[0];
    return (await fetch(`${base}${answer.headers.get('location')}`, { headers: { cookie: `${cookie}; ${flash}` } })).text();
  };

  it('says the action runs when its trigger is as it was', async () => {
    expect(await approve()).to.contain('Approved: guarded, action 0 runs now.');
  });

  it('says nothing runs when a reload removed its trigger since it asked', async () => {
    live = [];
    const page = await approve();
    expect(page).to.contain('Approved, but trigger &quot;guarded&quot; is no longer configured: nothing runs.');
    expect(page).not.to.contain('runs now');
  });

  it('says nothing runs when a reload disabled its trigger since it asked', async () => {
    live = [{ ...triggers[0], enabled: false }];
    const page = await approve();
    expect(page).to.contain('Approved, but trigger &quot;guarded&quot; is disabled: nothing runs.');
    expect(page).not.to.contain('runs now');
  });
});
