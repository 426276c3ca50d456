import { expect } from 'chai';
import { HmacFingerprintKey } from '../../../../src/adapters/crypto/hmac-fingerprint-key.js';
import { DecideApproval } from '../../../../src/application/approvals/decide-approval.js';
import { FireTriggers, type TriggerRunTask } from '../../../../src/application/triggers/fire-triggers.js';
import { RunTrigger } from '../../../../src/application/triggers/run-trigger.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import type { Trigger, TriggerAction, WebhookAction } from '../../../../src/domain/triggers/trigger.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import { actionFingerprint } from '../../../../src/domain/triggers/action-fingerprint.js';
import type { HttpForwarder, OutboundRequest, OutboundResult } from '../../../../src/ports/http-forwarder.js';
import type { JobLauncher } from '../../../../src/ports/job-launcher.js';
import type { ShellExecutor, ShellOptions, ShellRun } from '../../../../src/ports/shell-executor.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryActionRunRepository } from '../../../fakes/in-memory-action-run-repository.js';
import { InMemoryApprovalStore } from '../../../fakes/in-memory-approval-store.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { InMemoryTriggerLanes } from '../../../fakes/in-memory-trigger-lanes.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';

/*
 * A run's records keep a fingerprint of each action (what it is, to tell a changed one): made
 * under the installation's key, so that the database holds nothing against which a webhook's
 * header value or URL could be guessed offline; and a record written by a version before the key
 * (a pending approval, a run under way at the upgrade) is still recognised after it.
 */

class RecordingShell implements ShellExecutor {
  readonly commands: string[] = [];
  async run(command: string, _options: ShellOptions): Promise<ShellRun> {
    this.commands.push(command);
    return { exitCode: 0, timedOut: false, aborted: false, durationMs: 1, output: 'ok' };
  }
}

class RecordingForwarder implements HttpForwarder {
  readonly sent: OutboundRequest[] = [];
  async send(request: OutboundRequest): Promise<OutboundResult> {
    this.sent.push(request);
    return { ok: true, status: 200, attempts: 1 };
  }
}

/** What an attacker with the database computes for a guess: the fingerprint as versions before the key made it (FNV-1a over the canonical definition). */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonical(field)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};
const unkeyedFingerprint = (action: TriggerAction): string => {
  const { approval: _approval, ...definition } = action;
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(canonical(definition))) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
};

const SECRET = 'hunter2';
const webhook = (authorization: string, url = 'https://hooks.example.com/services/T0/B0/PATHSECRET') => ({
  type: 'webhook',
  url,
  headers: { Authorization: `Bearer ${authorization}` },
  approval: true,
});
const deploy = (hook: Record<string, unknown>): Trigger[] => {
  const { triggers, problems } = validateTriggers(
    [
      {
        name: 'deploy',
        watch_path: '/webhook',
        enabled: true,
        actions: [{ type: 'command', command: 'echo build' }, hook, { type: 'command', command: 'echo notify' }],
      },
    ],
    'test',
    triggerCatalog(),
  );
  expect(problems).to.deep.equal([]);
  return [...triggers];
};

const REQUEST_ID = '20000000-0000-4000-8000-000000000001';
const RUN_ID = '30000000-0000-4000-8000-000000000001';
const task: TriggerRunTask = { runId: RUN_ID, trigger: 'deploy', watchPath: '/webhook', firedAt: '2026-01-01T00:00:00.000Z', requestId: REQUEST_ID };
const KEY = new HmacFingerprintKey('k'.repeat(43));

const make = async () => {
  const clock = new FixedClock();
  const runs = new InMemoryActionRunRepository();
  const requests = new InMemoryInboundRequestStore();
  const approvals = new InMemoryApprovalStore();
  const shell = new RecordingShell();
  const forwarder = new RecordingForwarder();
  const queue = new InMemoryTaskQueue();
  const logger = new RecordingLogger();
  let live: readonly Trigger[] = deploy(webhook(SECRET));
  const source = { current: () => live };
  await requests.record({
    id: REQUEST_ID,
    watchPath: '/webhook',
    receivedAt: clock.now(),
    request: JSON.stringify(snapshotRequest({}, {}, {})),
    triggers: ['deploy'],
    runs: [{ trigger: 'deploy', runId: RUN_ID }],
    replayOf: null,
  });
  const runner = new RunTrigger(
    source,
    runs,
    requests,
    shell,
    forwarder,
    {} as JobLauncher,
    new SequentialIds(),
    clock,
    logger,
    { triggersDir: '/srv', commandTimeoutMs: 1000, commandEnv: {}, approvalTimeoutMs: 60_000, fingerprintKey: KEY },
    approvals,
  );
  const fire = new FireTriggers(source, requests, queue, new SequentialIds(), clock, logger, new InMemoryTriggerLanes(), undefined, undefined, undefined, KEY);
  const decide = new DecideApproval(approvals, runs, fire, clock, logger);
  const runQueued = async () => {
    for (const queued of queue.tasks.splice(0)) await runner.execute(queued.payload as TriggerRunTask);
  };
  const reload = (next: readonly Trigger[]) => {
    live = next;
  };
  const approve = async () => {
    const [approval] = await approvals.list({ limit: 1 });
    return (await decide.execute({ id: approval.id, decision: 'approved', by: 'admin UI' })).resumed;
  };
  /** Makes the run's records as a version before the key wrote them: each fingerprint unkeyed. */
  const asBeforeTheKey = () => {
    const actions = live[0].actions.map(unkeyedFingerprint);
    runs.runs.forEach((run, i) => {
      runs.runs[i] = { ...run, detail: { ...run.detail, action: actions[run.actionIndex], actions } };
    });
  };
  const statuses = async () => (await runs.forRun(RUN_ID)).map((run) => `${run.actionIndex}:${run.status}`);
  return { runs, shell, forwarder, runner, runQueued, reload, approve, asBeforeTheKey, statuses };
};

describe('action fingerprints and the secrets of webhook actions', () => {
  it('records no fingerprint against which a guess of a header value or of the URL can be tested offline', async () => {
    const { runner, runs } = await make();
    await runner.execute(task);
    const recorded = runs.runs.flatMap((run) => [run.detail.action, ...((run.detail.actions as unknown[]) ?? [])]).filter((value) => typeof value === 'string');
    expect(recorded).to.not.be.empty;
    const guesses = ['password', 'letmein', SECRET, 'hunter3'].flatMap((guess) => [
      deploy(webhook(guess))[0].actions[1],
      deploy(webhook(SECRET, `https://hooks.example.com/services/T0/B0/${guess === SECRET ? 'PATHSECRET' : guess}`))[0].actions[1],
    ]);
    for (const guess of guesses) expect(recorded, JSON.stringify(guess)).to.not.include(unkeyedFingerprint(guess));
    expect(JSON.stringify(runs.runs)).to.not.contain(SECRET).and.to.not.contain('PATHSECRET');
  });

  it('still tells a header value changed since the approval: the action does not run', async () => {
    const { runner, approve, reload, runQueued, forwarder, statuses } = await make();
    await runner.execute(task);
    reload(deploy(webhook('rotated')));
    expect(await approve()).to.equal('action-changed');
    await runQueued();
    expect(forwarder.sent).to.deep.equal([]);
    expect(await statuses()).to.deep.equal(['0:succeeded', '1:failed']);
  });

  it('an approval asked before the upgrade (its record keeps the unkeyed fingerprint) runs when approved after it; one whose header changed since does not', async () => {
    const same = await make();
    await same.runner.execute(task);
    same.asBeforeTheKey();
    expect(await same.approve()).to.equal('runs');
    await same.runQueued();
    expect(same.forwarder.sent.map((sent) => sent.headers.Authorization)).to.deep.equal([`Bearer ${SECRET}`]);
    expect(await same.statuses()).to.deep.equal(['0:succeeded', '1:succeeded', '2:succeeded']);
    expect(same.shell.commands).to.deep.equal(['echo build', 'echo notify']);

    const changed = await make();
    await changed.runner.execute(task);
    changed.asBeforeTheKey();
    changed.reload(deploy(webhook('rotated')));
    expect(await changed.approve()).to.equal('action-changed');
    await changed.runQueued();
    expect(changed.forwarder.sent).to.deep.equal([]);
  });

  it('a run under way at the upgrade goes on where it was: what it ran before is not run again', async () => {
    const { runner, runs, shell, asBeforeTheKey, statuses } = await make();
    await runner.execute(task);
    asBeforeTheKey();
    // Its worker died after the first action: only that one's record (unkeyed) is left.
    runs.runs.splice(0, runs.runs.length, ...runs.runs.filter((run) => run.actionIndex === 0));
    shell.commands.length = 0;
    await runner.execute(task);
    expect(shell.commands, 'echo build ran before the upgrade').to.deep.equal([]);
    expect(await statuses()).to.deep.equal(['0:succeeded', '1:awaiting_approval']);
  });

  it('makes fingerprints that differ between installations (keys) and leave the approval flag out', () => {
    const [, hook] = deploy(webhook(SECRET))[0].actions;
    const other = new HmacFingerprintKey('o'.repeat(43));
    const { approval: _approval, ...withoutApproval } = hook as WebhookAction;
    expect(KEY.mac('x')).to.match(/^[0-9a-f]{64}$/);
    expect(actionFingerprint(hook, KEY)).to.match(/^k:[0-9a-f]{64}$/);
    expect(actionFingerprint(hook, KEY)).to.not.equal(actionFingerprint(hook, other));
    expect(actionFingerprint(hook, KEY)).to.equal(actionFingerprint(withoutApproval as TriggerAction, KEY));
  });
});
