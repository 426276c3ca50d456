import { expect } from 'chai';
import { DecideApproval, whyNothingRuns } from '../../../../src/application/approvals/decide-approval.js';
import { ExpireApprovals } from '../../../../src/application/approvals/expire-approvals.js';
import { FireTriggers, type TriggerRunTask } from '../../../../src/application/triggers/fire-triggers.js';
import {
  APPROVAL_TIMEOUT_MS,
  noLongerWatches,
  RunTrigger,
  TRIGGER_DISABLED,
  TRIGGER_REMOVED,
  WHEN_NO_LONGER_MATCHES,
} from '../../../../src/application/triggers/run-trigger.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { DomainError } from '../../../../src/domain/errors/domain-error.js';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import type { Trigger, TriggerAction } from '../../../../src/domain/triggers/trigger.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
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

class RecordingShell implements ShellExecutor {
  readonly commands: string[] = [];
  async run(command: string, options: ShellOptions): Promise<ShellRun> {
    this.commands.push(
      `${command} [${Object.entries(options.env)
        .filter(([name]) => name.startsWith('AGW_ARG_'))
        .map(([name, value]) => `${name}=${value}`)
        .join(' ')}]`,
    );
    return { exitCode: 0, timedOut: false, aborted: false, durationMs: 1, output: 'ok' };
  }
}

const unused = {} as HttpForwarder & JobLauncher;
const unusedForwarder: HttpForwarder = { send: async (_request: OutboundRequest): Promise<OutboundResult> => ({ ok: true, status: 200, attempts: 1 }) };

const { triggers, problems } = validateTriggers(
  [
    {
      name: 'deploy',
      watch_path: '/webhook',
      enabled: true,
      actions: [
        { type: 'command', command: 'echo build {{body.branch}}' },
        { type: 'command', command: 'deploy {{body.branch}}', approval: true },
        { type: 'command', command: 'echo notify' },
      ],
    },
  ],
  'test',
  triggerCatalog(),
);

const REQUEST_ID = '20000000-0000-4000-8000-000000000001';
const RUN_ID = '30000000-0000-4000-8000-000000000001';
const task: TriggerRunTask = { runId: RUN_ID, trigger: 'deploy', watchPath: '/webhook', firedAt: '2026-01-01T00:00:00.000Z', requestId: REQUEST_ID };

/** `options`: other triggers in force, another request body (the run and its trigger are `deploy`'s). */
const make = async (
  withApprovals = true,
  options: { readonly triggers?: readonly Trigger[]; readonly body?: unknown; readonly endpointPaths?: (watchPath: string) => readonly string[] } = {},
) => {
  const clock = new FixedClock();
  const runs = new InMemoryActionRunRepository();
  const requests = new InMemoryInboundRequestStore();
  const approvals = new InMemoryApprovalStore();
  const shell = new RecordingShell();
  const queue = new InMemoryTaskQueue();
  const logger = new RecordingLogger();
  // The trigger set in force, as a reload replaces it.
  let live: readonly Trigger[] = options.triggers ?? triggers;
  const source = { current: () => live };
  const reload = (next: readonly Trigger[]) => {
    live = next;
  };
  await requests.record({
    id: REQUEST_ID,
    watchPath: '/webhook',
    receivedAt: clock.now(),
    request: JSON.stringify(snapshotRequest(options.body ?? { branch: 'main; rm -rf /' }, {}, {})),
    triggers: ['deploy'],
    runs: [{ trigger: 'deploy', runId: RUN_ID }],
    replayOf: null,
  });
  const runner = new RunTrigger(
    source,
    runs,
    requests,
    shell,
    unusedForwarder,
    unused,
    new SequentialIds(),
    clock,
    logger,
    { triggersDir: '/srv', commandTimeoutMs: 1000, commandEnv: {}, approvalTimeoutMs: 60_000, endpointPaths: options.endpointPaths },
    withApprovals ? approvals : undefined,
  );
  const fire = new FireTriggers(source, requests, queue, new SequentialIds(), clock, logger, new InMemoryTriggerLanes(), undefined, options.endpointPaths);
  const decide = new DecideApproval(approvals, runs, fire, clock, logger);
  const expire = new ExpireApprovals(approvals, runs, clock, logger);
  /** Runs the task the decision queued, as the worker would. */
  const runQueued = async () => {
    for (const queued of queue.tasks.splice(0)) await runner.execute(queued.payload as TriggerRunTask);
  };
  return { clock, runs, approvals, shell, runner, decide, expire, runQueued, queue, reload, logger };
};

const statuses = async (runs: InMemoryActionRunRepository) => (await runs.forRun(RUN_ID)).map((run) => `${run.actionIndex}:${run.status}`);

describe('Approvals', () => {
  it('validates: `approval` is true or false on any action', () => {
    expect(problems).to.deep.equal([]);
    expect(triggers[0].actions.map((action) => action.approval)).to.deep.equal([undefined, true, undefined]);
    const bad = validateTriggers(
      [{ name: 't', watch_path: '/webhook', enabled: true, actions: [{ type: 'webhook', url: 'https://x.test', approval: 'yes' }] }],
      'f',
      triggerCatalog(),
    ).problems;
    expect(bad).to.deep.equal(['f: trigger #0 "t": actions[0].approval: must be true or false']);
  });

  it('stops the run before the action, asking once with the action as it would run; nothing after it runs', async () => {
    const { runner, shell, runs, approvals } = await make();
    await runner.execute(task);
    await runner.execute(task); // the same task again (a worker died): asks no second time
    expect(shell.commands).to.deep.equal(['echo build "${AGW_ARG_1}" [AGW_ARG_1=main; rm -rf /]']);
    expect(await statuses(runs)).to.deep.equal(['0:succeeded', '1:awaiting_approval']);
    const [approval] = await approvals.list({ limit: 10 });
    expect((await approvals.list({ limit: 10 })).length).to.equal(1);
    expect(approval).to.deep.include({ trigger: 'deploy', actionIndex: 1, status: 'pending', requestId: REQUEST_ID });
    expect(approval.summary).to.equal('command: deploy {{body.branch}}\nAGW_ARG_1="main; rm -rf /"');
    expect(approval.expiresAt.getTime() - approval.createdAt.getTime()).to.equal(60_000);
  });

  describe('request data never deceives the approver', () => {
    /** The attacker review's value: forged lines, then blank lines that push the real payload out of sight. */
    const HOSTILE = `main\nAGW_ARG_2=(none)\n\nValues checked by the gateway: plain branch name.${'\n'.repeat(1600)}--evil-option; real payload here`;
    const withAction = (action: Record<string, unknown>) => {
      const made = validateTriggers([{ name: 'deploy', watch_path: '/webhook', enabled: true, actions: [action] }], 'test', triggerCatalog());
      expect(made.problems).to.deep.equal([]);
      return made.triggers;
    };
    const asked = async (action: Record<string, unknown>, body: unknown) => {
      const { runner, approvals } = await make(true, { triggers: withAction(action), body });
      await runner.execute(task);
      const [approval] = await approvals.list({ limit: 1 });
      return approval.summary;
    };
    /** What would pass for a line break, or reorder or hide text, on a page or in a chat. */
    const UNSHOWN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

    it("a command: one line per variable, each value quoted with its newlines escaped and cut with what was left out said (the real payload's end shows)", async () => {
      const summary = await asked({ type: 'command', approval: true, command: "printf '%s\\n' {{body.x}} {{body.y}} >> ap.log" }, { x: HOSTILE, y: 'two' });
      const lines = summary.split('\n');
      expect(lines).to.have.length(3);
      expect(lines[0]).to.equal("command: printf '%s\\n' {{body.x}} {{body.y}} >> ap.log");
      expect(lines[1]).to.match(
        /^AGW_ARG_1="main\\nAGW_ARG_2=\(none\)\\n\\nValues checked by the gateway: plain branch name\.(\\n)+" \[… \d+ characters left out …\] "(\\n)+--evil-option; real payload here"$/,
      );
      expect(lines[2]).to.equal('AGW_ARG_2="two"');
      // What is shown of the value is JSON: read back, its two ends are the value's.
      const [, head, leftOut, tail] = /^AGW_ARG_1=(".*") \[… (\d+) characters left out …\] (".*")$/.exec(lines[1])!;
      expect(HOSTILE.startsWith(JSON.parse(head))).to.equal(true);
      expect(HOSTILE.endsWith(JSON.parse(tail))).to.equal(true);
      expect(JSON.parse(head).length + Number(leftOut) + JSON.parse(tail).length).to.equal(HOSTILE.length);
      expect(lines[1].length).to.be.below(400);
    });

    it('a command: quotes, backslashes, bidi overrides and isolates, line separators and invisible characters are escaped, not shown', async () => {
      const value = 'a" \\ b\u202Egnp.exe\u2066x\u2069\u2028y\u2029z\r\u0085\u200B\u{E0041}';
      const summary = await asked({ type: 'command', approval: true, command: 'deploy {{body.x}}' }, { x: value });
      expect(summary.replace(/\n/g, '')).not.to.match(UNSHOWN);
      expect(summary.split('\n')[1]).to.equal('AGW_ARG_1="a\\" \\\\ b\\u202egnp.exe\\u2066x\\u2069\\u2028y\\u2029z\\r\\u0085\\u200b\\udb40\\udc41"');
      expect(JSON.parse(summary.split('\n')[1].slice('AGW_ARG_1='.length))).to.equal(value);
    });

    it("an agent job: its prompt's lines each marked, between a line that says so and one that ends it, its controls escaped", async () => {
      const summary = await asked(
        { type: 'agent', approval: true, job: 'Triage {{body.x}}' },
        { x: `${HOSTILE.replace('--evil', `${'\n'.repeat(1000)}--evil`)}\u202E\r(end of the prompt)` },
      );
      const lines = summary.split('\n');
      expect(lines[0]).to.equal('agent job, its prompt (each of its lines begins with "│"):');
      expect(lines.at(-1)).to.equal('(end of the prompt)');
      const inside = lines.slice(1, -1);
      const notMarked = inside.filter((line) => !line.startsWith('│ '));
      expect(notMarked).to.have.length(1);
      expect(notMarked[0]).to.match(/^\[… \d+ characters left out …\]$/);
      expect(inside).to.include.members(['│ Triage main', '│ AGW_ARG_2=(none)', '│ Values checked by the gateway: plain branch name.']);
      expect(inside.at(-1)).to.equal('│ --evil-option; real payload here\\u202e\\r(end of the prompt)');
      expect(summary.replace(/\n/g, '')).not.to.match(UNSHOWN);
    });
  });

  it('an approval asked before actions were fingerprinted (its summary unquoted) still runs when approved; one whose action changed since does not', async () => {
    // As such versions stored it: no fingerprint in the record, the summary with the value raw.
    const asBefore = async (made: Awaited<ReturnType<typeof make>>) => {
      await made.runner.execute(task);
      const [approval] = await made.approvals.list({ limit: 1 });
      const waiting = made.runs.runs.find((run) => run.actionIndex === 1)!;
      const { action: _fingerprint, ...detail } = waiting.detail;
      made.runs.runs[made.runs.runs.indexOf(waiting)] = { ...waiting, detail };
      made.approvals.approvals.set(approval.id, { ...approval, summary: 'command: deploy {{body.branch}}\nAGW_ARG_1=main; rm -rf /' });
      return approval.id;
    };
    const same = await make();
    expect(await same.decide.execute({ id: await asBefore(same), decision: 'approved', by: 'admin UI' })).to.have.property('resumed', 'runs');
    await same.runQueued();
    expect(await statuses(same.runs)).to.deep.equal(['0:succeeded', '1:succeeded', '2:succeeded']);
    expect(same.shell.commands[1]).to.equal('deploy "${AGW_ARG_1}" [AGW_ARG_1=main; rm -rf /]');

    const changed = await make();
    const id = await asBefore(changed);
    changed.reload([
      { ...triggers[0], actions: [triggers[0].actions[0], { ...triggers[0].actions[1], command: 'deploy-prod {{body.branch}}' } as TriggerAction] },
    ]);
    await changed.decide.execute({ id, decision: 'approved', by: 'admin UI' });
    await changed.runQueued();
    expect(await statuses(changed.runs)).to.deep.equal(['0:succeeded', '1:failed']);
    expect((await changed.runs.forRun(RUN_ID))[1].error).to.match(/^not run: the action changed since it was approved/);
  });

  it('approved: the run resumes at the action, runs it and the rest once', async () => {
    const { runner, shell, runs, approvals, decide, runQueued } = await make();
    await runner.execute(task);
    const [approval] = await approvals.list({ limit: 1 });
    const decided = await decide.execute({ id: approval.id, decision: 'approved', by: 'admin UI' });
    expect(decided).to.deep.include({ status: 'approved', decidedBy: 'admin UI', resumed: 'runs' });
    await runQueued();
    expect(shell.commands).to.deep.equal([
      'echo build "${AGW_ARG_1}" [AGW_ARG_1=main; rm -rf /]',
      'deploy "${AGW_ARG_1}" [AGW_ARG_1=main; rm -rf /]',
      'echo notify []',
    ]);
    expect(await statuses(runs)).to.deep.equal(['0:succeeded', '1:succeeded', '2:succeeded']);
    const again = await decide.execute({ id: approval.id, decision: 'approved', by: 'someone' }).catch((e: unknown) => e);
    expect(again).to.be.instanceOf(DomainError).and.to.have.property('code', 'conflict');
    expect((again as Error).message).to.equal('This approval was approved already by admin UI');
  });

  it('approved but not queued (the queue failed after the decision was stored): approving again queues the run, once', async () => {
    const { runner, shell, approvals, decide, runQueued, queue } = await make();
    await runner.execute(task);
    const [approval] = await approvals.list({ limit: 1 });
    const enqueue = queue.enqueue.bind(queue);
    queue.enqueue = async () => {
      throw new Error('the database went away');
    };
    const failed = await decide.execute({ id: approval.id, decision: 'approved', by: 'admin UI' }).catch((e: Error) => e);
    expect(failed).to.have.property('message', 'the database went away');
    queue.enqueue = enqueue;
    // The caller tries again (twice): refused as decided already, and the run is queued, once.
    for (const by of ['admin UI', 'someone else']) {
      const again = await decide.execute({ id: approval.id, decision: 'approved', by }).catch((e: unknown) => e);
      expect(again).to.be.instanceOf(DomainError).and.to.have.property('message', 'This approval was approved already by admin UI');
    }
    expect(queue.tasks).to.have.length(1);
    await runQueued();
    expect(shell.commands).to.deep.equal([
      'echo build "${AGW_ARG_1}" [AGW_ARG_1=main; rm -rf /]',
      'deploy "${AGW_ARG_1}" [AGW_ARG_1=main; rm -rf /]',
      'echo notify []',
    ]);
  });

  it('denied: the action and those after it never run, and the record says who denied it', async () => {
    const { runner, shell, runs, approvals, decide, runQueued, queue } = await make();
    await runner.execute(task);
    const [approval] = await approvals.list({ limit: 1 });
    await decide.execute({ id: approval.id, decision: 'denied', by: 'admin UI' });
    expect(queue.tasks).to.deep.equal([]);
    await runQueued();
    expect(shell.commands).to.have.length(1);
    const records = await runs.forRun(RUN_ID);
    expect(records.map((run) => `${run.actionIndex}:${run.status}:${run.error}`)).to.deep.equal(['0:succeeded:null', '1:denied:denied by admin UI']);
  });

  it('denied, but its record failed to save: the denial stands, and the next press (refused as decided) closes the record', async () => {
    const { runner, runs, approvals, decide } = await make();
    await runner.execute(task);
    const [approval] = await approvals.list({ limit: 1 });
    const save = runs.save.bind(runs);
    runs.save = async () => {
      runs.save = save;
      throw new Error('the database hiccuped');
    };
    expect(await decide.execute({ id: approval.id, decision: 'denied', by: 'Telegram @ada' }).catch((e: Error) => e.message)).to.equal('the database hiccuped');
    expect(await statuses(runs)).to.deep.equal(['0:succeeded', '1:awaiting_approval']);
    const again = await decide.execute({ id: approval.id, decision: 'denied', by: 'Telegram @bob' }).catch((e: Error) => e.message);
    expect(again).to.equal('This approval was denied already by Telegram @ada');
    const records = await runs.forRun(RUN_ID);
    expect(records.map((run) => `${run.actionIndex}:${run.status}:${run.error}`)).to.deep.equal(['0:succeeded:null', '1:denied:denied by Telegram @ada']);
  });

  it('expired: a decision after the time is refused, the sweep records it expired, nothing runs', async () => {
    const { runner, shell, runs, approvals, decide, expire, clock, queue } = await make();
    await runner.execute(task);
    const [approval] = await approvals.list({ limit: 1 });
    clock.advance(60_000);
    const late = await decide.execute({ id: approval.id, decision: 'approved', by: 'admin UI' }).catch((e: unknown) => e);
    expect(late).to.be.instanceOf(DomainError).and.to.have.property('code', 'conflict');
    expect((late as Error).message).to.equal('This approval has expired: the action was not run');
    expect(await expire.execute()).to.equal(1);
    expect(await expire.execute()).to.equal(0);
    expect(queue.tasks).to.deep.equal([]);
    expect(shell.commands).to.have.length(1);
    expect(await statuses(runs)).to.deep.equal(['0:succeeded', '1:expired']);
  });

  it('expired, but its record failed to save (the sweep expires first, then closes): the next press closes the record', async () => {
    const { runner, runs, approvals, decide, expire, clock } = await make();
    await runner.execute(task);
    const [approval] = await approvals.list({ limit: 1 });
    clock.advance(60_000);
    const save = runs.save.bind(runs);
    runs.save = async () => {
      runs.save = save;
      throw new Error('the database hiccuped');
    };
    expect(await expire.execute().catch((e: Error) => e.message)).to.equal('the database hiccuped');
    expect(await expire.execute(), 'the approval is expired already: the sweep sees it no more').to.equal(0);
    expect(await statuses(runs)).to.deep.equal(['0:succeeded', '1:awaiting_approval']);
    const late = await decide.execute({ id: approval.id, decision: 'approved', by: 'admin UI' }).catch((e: Error) => e.message);
    expect(late).to.equal('This approval has expired: the action was not run');
    const records = await runs.forRun(RUN_ID);
    expect(records.map((run) => `${run.actionIndex}:${run.status}:${run.error}`)).to.deep.equal([
      '0:succeeded:null',
      '1:expired:no decision before the approval expired',
    ]);
  });

  it('approved after a reload changed the action: not run, recorded with why, and nothing after it runs', async () => {
    const withAction = (action: TriggerAction) => [{ ...triggers[0], actions: [triggers[0].actions[0], action, triggers[0].actions[2]] }];
    const changed: Array<[string, TriggerAction]> = [
      ['its command', { ...triggers[0].actions[1], command: 'deploy-prod {{body.branch}}' } as TriggerAction],
      ['another action in its place, asking no approval', { ...triggers[0].actions[2], approval: undefined }],
      ['only a setting the approval did not show (its retries)', { ...triggers[0].actions[1], retries: 3 } as TriggerAction],
    ];
    for (const [what, action] of changed) {
      const { runner, shell, runs, approvals, decide, runQueued, reload } = await make();
      await runner.execute(task);
      const [approval] = await approvals.list({ limit: 1 });
      reload(withAction(action));
      const decided = await decide.execute({ id: approval.id, decision: 'approved', by: 'admin UI' });
      expect(decided.resumed, `${what}: the decision says nothing runs`).to.equal('action-changed');
      await runQueued();
      expect(shell.commands, what).to.deep.equal(['echo build "${AGW_ARG_1}" [AGW_ARG_1=main; rm -rf /]']);
      expect(await statuses(runs), what).to.deep.equal(['0:succeeded', '1:failed']);
      expect((await runs.forRun(RUN_ID))[1].error, what).to.match(/^not run: the action changed since it was approved/);
    }
  });

  it('a run of the task again (a worker died, a stop) ends at a refused approval: denied, expired, or changed since approved — nothing after it runs', async () => {
    const refusals: Array<[string, (m: Awaited<ReturnType<typeof make>>, id: string) => Promise<void>]> = [
      ['denied', async ({ decide }, id) => void (await decide.execute({ id, decision: 'denied', by: 'admin UI' }))],
      [
        'expired',
        async ({ clock, expire }) => {
          clock.advance(60_000);
          await expire.execute();
        },
      ],
      [
        'changed since approved',
        async ({ decide, runQueued, reload }, id) => {
          reload([
            {
              ...triggers[0],
              actions: [triggers[0].actions[0], { ...triggers[0].actions[1], command: 'deploy-prod' } as TriggerAction, triggers[0].actions[2]],
            },
          ]);
          await decide.execute({ id, decision: 'approved', by: 'admin UI' });
          await runQueued();
          reload(triggers);
        },
      ],
    ];
    for (const [what, refuse] of refusals) {
      const made = await make();
      const { runner, shell, runs, approvals } = made;
      await runner.execute(task);
      const [approval] = await approvals.list({ limit: 1 });
      await refuse(made, approval.id);
      const before = await statuses(runs);
      await runner.execute(task); // the first task again
      await runner.execute({ ...task, approvedAction: 1 }); // the approved run's task again
      expect(shell.commands, what).to.deep.equal(['echo build "${AGW_ARG_1}" [AGW_ARG_1=main; rm -rf /]']);
      expect(await statuses(runs), what).to.deep.equal(before);
      expect(before.at(-1), what).to.match(/^1:(denied|expired|failed)$/);
    }
  });

  it('decided while it was being asked (the buttons out before the record): the decision is never overwritten by "awaiting approval"', async () => {
    for (const decision of ['denied', 'approved'] as const) {
      const { runner, shell, runs, approvals, decide, runQueued } = await make();
      const request = approvals.request.bind(approvals);
      approvals.request = async (asked) => {
        const stored = await request(asked);
        // a press on a replica, before this one writes the record
        await decide.execute({ id: stored.id, decision, by: 'Telegram @ada' });
        return stored;
      };
      await runner.execute(task);
      await runQueued();
      const expected = decision === 'denied' ? ['0:succeeded', '1:denied'] : ['0:succeeded', '1:succeeded', '2:succeeded'];
      expect(await statuses(runs), decision).to.deep.equal(expected);
      expect(shell.commands, decision).to.have.length(decision === 'denied' ? 1 : 3);
    }
  });

  it('approved after a reload left the action as it was: it runs, and the rest', async () => {
    const { runner, shell, runs, approvals, decide, runQueued, reload } = await make();
    await runner.execute(task);
    const [approval] = await approvals.list({ limit: 1 });
    reload([{ ...triggers[0], actions: [...triggers[0].actions] }]);
    expect(await decide.execute({ id: approval.id, decision: 'approved', by: 'admin UI' })).to.have.property('resumed', 'runs');
    await runQueued();
    expect(shell.commands).to.have.length(3);
    expect(await statuses(runs)).to.deep.equal(['0:succeeded', '1:succeeded', '2:succeeded']);
  });

  it('approved after a reload put an action before it: the approved action is found by what it is, and runs after the new one; nothing runs twice', async () => {
    const { runner, shell, runs, approvals, decide, runQueued, reload } = await make();
    await runner.execute(task);
    const [approval] = await approvals.list({ limit: 1 });
    const check = { type: 'command', command: 'echo check' } as TriggerAction;
    reload([{ ...triggers[0], actions: [check, ...triggers[0].actions] }]);
    expect(await decide.execute({ id: approval.id, decision: 'approved', by: 'admin UI' })).to.have.property('resumed', 'runs');
    await runQueued();
    expect(shell.commands.map((line) => line.split(' [')[0])).to.deep.equal([
      'echo build "${AGW_ARG_1}"',
      'echo check',
      'deploy "${AGW_ARG_1}"',
      'echo notify',
    ]);
    // Build and deploy keep their records (0, 1); notify is recorded at its place now (3), the new
    // action, whose place 0 is build's, after every index in use (4).
    expect(await statuses(runs)).to.deep.equal(['0:succeeded', '1:succeeded', '3:succeeded', '4:succeeded']);
  });

  it('approved after its trigger was disabled: nothing more runs, the record that waited and those of the actions after it say why', async () => {
    const { runner, shell, runs, approvals, decide, runQueued, reload, logger } = await make();
    await runner.execute(task);
    const [approval] = await approvals.list({ limit: 1 });
    reload([{ ...triggers[0], enabled: false }]);
    const decided = await decide.execute({ id: approval.id, decision: 'approved', by: 'admin UI' });
    expect(decided.resumed, 'the decision says nothing runs').to.equal('trigger-disabled');
    expect(whyNothingRuns(decided)).to.equal('trigger "deploy" is disabled');
    await runQueued();
    expect(shell.commands).to.have.length(1);
    expect(logger.entries.map((e) => e.message)).to.include('approved action of a trigger disabled since; nothing runs');
    const records = await runs.forRun(RUN_ID);
    // Before, the action after it had no record: the run looked as if it still waited.
    expect(records.map((run) => `${run.actionIndex}:${run.status}:${run.error}`)).to.deep.equal([
      '0:succeeded:null',
      `1:failed:${TRIGGER_DISABLED}`,
      `2:not_runnable:${TRIGGER_DISABLED}`,
    ]);
  });

  it('approved after its trigger was removed: nothing more runs, the record that waited says why, and one record says the rest (not known any more) did not run', async () => {
    const { runner, shell, runs, approvals, decide, runQueued, reload } = await make();
    await runner.execute(task);
    const [approval] = await approvals.list({ limit: 1 });
    reload([]);
    expect(await decide.execute({ id: approval.id, decision: 'approved', by: 'admin UI' })).to.have.property('resumed', 'trigger-removed');
    await runQueued();
    expect(shell.commands).to.have.length(1);
    expect((await runs.forRun(RUN_ID)).map((run) => `${run.actionIndex}:${run.type}:${run.status}:${run.error}`)).to.deep.equal([
      '0:command:succeeded:null',
      `1:command:failed:${TRIGGER_REMOVED}`,
      `2:unknown:not_runnable:${TRIGGER_REMOVED}`,
    ]);
  });

  it('approved after a reload moved its trigger to another path: the decision says nothing runs, and the records say why', async () => {
    const { runner, shell, runs, approvals, decide, runQueued, reload, logger } = await make();
    await runner.execute(task);
    const [approval] = await approvals.list({ limit: 1 });
    reload([{ ...triggers[0], watchPath: '/jobs/status' }]);
    const decided = await decide.execute({ id: approval.id, decision: 'approved', by: 'admin UI' });
    expect(decided.resumed, 'the decision says nothing runs').to.equal('watch-changed');
    expect(whyNothingRuns(decided)).to.equal('trigger "deploy" no longer watches /webhook, the path of the request that fired it');
    expect(logger.entries.map((e) => e.message)).to.include(
      'approved action of a trigger that no longer watches the path of the request that fired it (reloaded since); nothing runs',
    );
    await runQueued();
    expect(shell.commands, 'only the action before the approval ran').to.have.length(1);
    expect(logger.entries.map((e) => e.message)).to.include(
      'the trigger no longer watches the path of the request that fired it (reloaded since); its queued run is dropped',
    );
    expect((await runs.forRun(RUN_ID)).map((run) => `${run.actionIndex}:${run.status}:${run.error}`)).to.deep.equal([
      '0:succeeded:null',
      `1:failed:${noLongerWatches('/webhook')}`,
      `2:not_runnable:${noLongerWatches('/webhook')}`,
    ]);
  });

  it("approved after a reload moved its trigger to another name of the same endpoint (a channel's alias path): it runs, and the rest", async () => {
    const aliases = (path: string) => (path === '/webhook' ? ['/webhook', '/webhook-alias'] : [path]);
    const { runner, shell, runs, approvals, decide, runQueued, reload } = await make(true, { endpointPaths: aliases });
    await runner.execute(task);
    const [approval] = await approvals.list({ limit: 1 });
    reload([{ ...triggers[0], watchPath: '/webhook-alias' }]);
    expect(await decide.execute({ id: approval.id, decision: 'approved', by: 'admin UI' })).to.have.property('resumed', 'runs');
    await runQueued();
    expect(shell.commands).to.have.length(3);
    expect(await statuses(runs)).to.deep.equal(['0:succeeded', '1:succeeded', '2:succeeded']);
  });

  /** `deploy` as reloaded with this `when` (validated as the trigger file's). */
  const deployWhen = (when: Record<string, unknown>): Trigger[] => {
    const made = validateTriggers(
      [
        {
          name: 'deploy',
          watch_path: '/webhook',
          enabled: true,
          when,
          actions: [
            { type: 'command', command: 'echo build {{body.branch}}' },
            { type: 'command', command: 'deploy {{body.branch}}', approval: true },
            { type: 'command', command: 'echo notify' },
          ],
        },
      ],
      'test',
      triggerCatalog(),
    );
    expect(made.problems).to.deep.equal([]);
    return made.triggers;
  };

  it("approved after a reload changed its trigger's `when` so that the request no longer passes it: the decision says nothing runs, and the records say why", async () => {
    const { runner, shell, runs, approvals, decide, runQueued, reload, logger } = await make();
    await runner.execute(task);
    const [approval] = await approvals.list({ limit: 1 });
    reload(deployWhen({ 'body.branch': { equals: 'release' } }));
    const decided = await decide.execute({ id: approval.id, decision: 'approved', by: 'admin UI' });
    expect(decided.resumed, 'the decision says nothing runs').to.equal('when-changed');
    expect(whyNothingRuns(decided)).to.equal('the "when" of trigger "deploy" no longer matches the request that fired it');
    await runQueued();
    expect(shell.commands, 'only the action before the approval ran').to.have.length(1);
    expect(logger.entries.map((e) => e.message)).to.include(
      "the trigger's when no longer matches the request that fired it (reloaded since); its queued run is dropped",
    );
    const records = await runs.forRun(RUN_ID);
    expect(records.map((run) => `${run.actionIndex}:${run.status}:${run.error}`)).to.deep.equal([
      '0:succeeded:null',
      `1:failed:${WHEN_NO_LONGER_MATCHES}`,
      `2:not_runnable:${WHEN_NO_LONGER_MATCHES}`,
    ]);
  });

  it("approved after a reload changed its trigger's `when` to one the request still passes: it runs, and the rest", async () => {
    const { runner, shell, runs, approvals, decide, runQueued, reload } = await make();
    await runner.execute(task);
    const [approval] = await approvals.list({ limit: 1 });
    reload(deployWhen({ 'body.branch': { prefix: 'main' } }));
    expect(await decide.execute({ id: approval.id, decision: 'approved', by: 'admin UI' })).to.have.property('resumed', 'runs');
    await runQueued();
    expect(shell.commands).to.have.length(3);
    expect(await statuses(runs)).to.deep.equal(['0:succeeded', '1:succeeded', '2:succeeded']);
  });

  it('approved after a reload removed its trigger, or the action: the decision says nothing runs, and nothing does', async () => {
    const cases: Array<[string, readonly Trigger[], string, string]> = [
      ['the trigger removed', [], 'trigger-removed', 'trigger "deploy" is no longer configured'],
      [
        'the action removed',
        [{ ...triggers[0], actions: [triggers[0].actions[0], triggers[0].actions[2]] }],
        'action-changed',
        'action 1 of trigger "deploy" was changed or removed since it asked',
      ],
    ];
    for (const [what, next, resumed, why] of cases) {
      const { runner, shell, runs, approvals, decide, runQueued, reload, logger } = await make();
      await runner.execute(task);
      const [approval] = await approvals.list({ limit: 1 });
      reload(next);
      const decided = await decide.execute({ id: approval.id, decision: 'approved', by: 'admin UI' });
      expect(decided, what).to.deep.include({ status: 'approved', resumed });
      expect(whyNothingRuns(decided), what).to.equal(why);
      expect(
        logger.entries.map((e) => e.message),
        what,
      ).to.include('trigger action approved; nothing runs');
      await runQueued();
      expect(shell.commands, what).to.have.length(1);
      expect((await statuses(runs)).slice(0, 2), what).to.deep.equal(['0:succeeded', '1:failed']);
    }
  });

  it('says nothing of what runs for a denial', async () => {
    const { runner, approvals, decide } = await make();
    await runner.execute(task);
    const [approval] = await approvals.list({ limit: 1 });
    const decided = await decide.execute({ id: approval.id, decision: 'denied', by: 'admin UI' });
    expect(decided).to.not.have.property('resumed');
    expect(whyNothingRuns(decided)).to.equal(undefined);
  });

  it('is not_found for an unknown approval', async () => {
    const { decide } = await make();
    const error = await decide.execute({ id: '40000000-0000-4000-8000-000000000001', decision: 'approved', by: 'x' }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(DomainError).and.to.have.property('code', 'not_found');
  });

  it('without an approval store the action is not runnable: never run unapproved', async () => {
    const { runner, shell, runs } = await make(false);
    await runner.execute(task);
    expect(shell.commands).to.have.length(1);
    expect(await statuses(runs)).to.deep.equal(['0:succeeded', '1:not_runnable']);
  });

  it('waits 30 minutes by default', () => {
    expect(APPROVAL_TIMEOUT_MS).to.equal(30 * 60_000);
  });
});
