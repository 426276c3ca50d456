import { expect } from 'chai';
import { CronParserCronCalendar } from '../../../../src/adapters/schedule/cron-parser-cron-calendar.js';
import { RunSchedule } from '../../../../src/application/schedules/run-schedule.js';
import { RunTrigger } from '../../../../src/application/triggers/run-trigger.js';
import type { Schedule } from '../../../../src/domain/schedules/schedule.js';
import { validateSchedules } from '../../../../src/domain/schedules/validate-schedules.js';
import type { HttpForwarder, OutboundRequest, OutboundResult } from '../../../../src/ports/http-forwarder.js';
import type { JobLaunch, JobLauncher } from '../../../../src/ports/job-launcher.js';
import type { ShellExecutor, ShellOptions, ShellRun } from '../../../../src/ports/shell-executor.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryActionRunRepository } from '../../../fakes/in-memory-action-run-repository.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryScheduleRunRepository } from '../../../fakes/in-memory-schedule-run-repository.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';

class RecordingShell implements ShellExecutor {
  readonly runs: Array<{ command: string; env: Readonly<Record<string, string>> }> = [];
  /** Called while a command runs, before it ends. */
  during?: () => Promise<void>;
  constructor(private readonly exitCode = 0) {}
  async run(command: string, options: ShellOptions): Promise<ShellRun> {
    this.runs.push({ command, env: options.env });
    await this.during?.();
    return { exitCode: this.exitCode, timedOut: false, aborted: false, durationMs: 1, output: '' };
  }
}

class RecordingForwarder implements HttpForwarder {
  readonly sent: OutboundRequest[] = [];
  async send(request: OutboundRequest): Promise<OutboundResult> {
    this.sent.push(request);
    return { ok: true, status: 200, attempts: 1 };
  }
}

class RecordingLauncher implements JobLauncher {
  readonly launched: JobLaunch[] = [];
  async launch(job: JobLaunch): Promise<string> {
    this.launched.push(job);
    return 'job-1';
  }
}

const calendar = new CronParserCronCalendar();
const parse = (entries: unknown[]): Schedule[] => {
  const { schedules, problems } = validateSchedules(entries, 'CRONS.json', {
    llmProviders: ['openai'],
    cronProblem: (expression, timezone) => calendar.problem(expression, timezone),
  });
  expect(problems).to.deep.equal([]);
  return schedules;
};

const setup = (schedules: Schedule[], exitCode = 0) => {
  const shell = new RecordingShell(exitCode);
  const forwarder = new RecordingForwarder();
  const launcher = new RecordingLauncher();
  const actionRuns = new InMemoryActionRunRepository();
  const clock = new FixedClock(new Date('2026-03-01T03:00:00.200Z'));
  const logger = new RecordingLogger();
  const actions = new RunTrigger([], actionRuns, new InMemoryInboundRequestStore(), shell, forwarder, launcher, new SequentialIds(), clock, logger, {
    triggersDir: '/srv/triggers',
    commandTimeoutMs: 1000,
    commandEnv: { PATH: '/usr/bin' },
  });
  const runs = new InMemoryScheduleRunRepository();
  const run = new RunSchedule({ current: () => schedules }, actions, runs, clock, logger);
  return { shell, forwarder, launcher, actionRuns, runs, run, logger };
};

const RUN_ID = '30000000-0000-4000-8000-000000000001';

describe('RunSchedule', () => {
  it("runs the schedule's actions with {{now}} as the occurrence and {{schedule.name}}, and records the outcome", async () => {
    const { shell, forwarder, launcher, runs, run, actionRuns } = setup(
      parse([
        {
          name: 'nightly',
          schedule: '0 3 * * *',
          enabled: true,
          actions: [
            { type: 'command', command: 'report {{now}} "{{schedule.name}}"' },
            { type: 'webhook', url: 'https://hooks.example/x', vars: { team: 'ops' } },
            { type: 'agent', job: 'Report for {{schedule.name}} at {{now}}' },
          ],
        },
      ]),
    );
    await run.execute({ schedule: 'nightly', occurrence: '2026-03-01T03:00:00.000Z', catchUp: false, fingerprint: 'f'.repeat(64) }, RUN_ID);
    expect(
      Object.entries(shell.runs[0].env)
        .filter(([name]) => name.startsWith('AGW_ARG_'))
        .map(([, value]) => value),
    ).to.deep.equal(['2026-03-01T03:00:00.000Z', 'nightly']);
    expect(forwarder.sent[0].json).to.deep.equal({ team: 'ops', data: { now: '2026-03-01T03:00:00.000Z', schedule: { name: 'nightly' } } });
    expect(launcher.launched[0].job).to.equal('Report for nightly at 2026-03-01T03:00:00.000Z');
    expect((await actionRuns.forRun(RUN_ID)).map((r) => [r.trigger, r.status])).to.deep.equal([
      ['cron:nightly', 'succeeded'],
      ['cron:nightly', 'succeeded'],
      ['cron:nightly', 'succeeded'],
    ]);
    const [recorded] = await runs.forSchedule('nightly', 1);
    // With the fingerprint of the definition that enqueued it: start-up judges catch-up by it (review L3).
    expect(recorded).to.deep.include({ status: 'succeeded', runId: RUN_ID, catchUp: false, error: null, fingerprint: 'f'.repeat(64) });
  });

  it("records the schedule and occurrence on an action's record from its start, so its run page names them while it runs", async () => {
    const { shell, actionRuns, run } = setup(parse([{ name: 'slow', schedule: '0 3 * * *', enabled: true, actions: [{ type: 'command', command: 'true' }] }]));
    let whileRunning: unknown;
    shell.during = async () => {
      whileRunning = (await actionRuns.forRun(RUN_ID)).map((r) => [r.status, r.detail.schedule, r.detail.occurrence]);
    };
    await run.execute({ schedule: 'slow', occurrence: '2026-03-01T03:00:00.000Z', catchUp: false }, RUN_ID);
    expect(whileRunning).to.deep.equal([['running', 'slow', '2026-03-01T03:00:00.000Z']]);
    expect((await actionRuns.forRun(RUN_ID)).map((r) => [r.status, r.detail.schedule, r.detail.occurrence])).to.deep.equal([
      ['succeeded', 'slow', '2026-03-01T03:00:00.000Z'],
    ]);
  });

  it('records a failed occurrence when an action fails, and does not repeat actions already recorded when run again', async () => {
    const { shell, runs, run } = setup(parse([{ name: 'n', schedule: '0 3 * * *', enabled: true, actions: [{ type: 'command', command: 'false' }] }]), 1);
    await run.execute({ schedule: 'n', occurrence: '2026-03-01T03:00:00.000Z', catchUp: true }, RUN_ID);
    await run.execute({ schedule: 'n', occurrence: '2026-03-01T03:00:00.000Z', catchUp: true }, RUN_ID);
    expect(shell.runs).to.have.length(1);
    const [recorded] = await runs.forSchedule('n', 1);
    expect(recorded.status).to.equal('failed');
    expect(recorded.catchUp).to.equal(true);
  });

  it('records a failed occurrence, saying why, when the task queue takes its task back mid-way; a later run of the task records again', async () => {
    const { shell, runs, run } = setup(
      parse([
        {
          name: 'long',
          schedule: '0 3 * * *',
          enabled: true,
          actions: [
            { type: 'command', command: 'first' },
            { type: 'command', command: 'second' },
          ],
        },
      ]),
    );
    const claim = new AbortController();
    // The queue takes the task back while the first command runs (past its time limit).
    shell.during = async () => claim.abort(new Error("the task queue took this task back: it ran past its queue's time limit of 86400 s"));
    let thrown: unknown;
    await run
      .execute({ schedule: 'long', occurrence: '2026-03-01T03:00:00.000Z', catchUp: false }, RUN_ID, claim.signal)
      .catch((error: unknown) => (thrown = error));
    expect(String(thrown)).to.match(/stopped before action 1/);
    expect(shell.runs.map((each) => each.command)).to.deep.equal(['first']);
    expect((await runs.forSchedule('long', 1))[0]).to.deep.include({
      status: 'failed',
      error: "the run was stopped before action 1: the task queue took this task back: it ran past its queue's time limit of 86400 s",
    });
    // The queue runs the task again: the second command runs, once, and the occurrence succeeds.
    shell.during = undefined;
    await run.execute({ schedule: 'long', occurrence: '2026-03-01T03:00:00.000Z', catchUp: false }, RUN_ID, new AbortController().signal);
    expect(shell.runs.map((each) => each.command)).to.deep.equal(['first', 'second']);
    expect((await runs.forSchedule('long', 1))[0]).to.deep.include({ status: 'succeeded', error: null });
  });

  it('does not repeat an action that ran when the schedules file was reloaded between two runs of the task (an action put before it)', async () => {
    const entry = (commands: string[]) => ({
      name: 'long',
      schedule: '0 3 * * *',
      enabled: true,
      actions: commands.map((command) => ({ type: 'command', command })),
    });
    const schedules = parse([entry(['first', 'second'])]);
    const { shell, runs, run } = setup(schedules);
    const claim = new AbortController();
    shell.during = async () => claim.abort(new Error('the task queue took this task back'));
    await run.execute({ schedule: 'long', occurrence: '2026-03-01T03:00:00.000Z', catchUp: false }, RUN_ID, claim.signal).catch(() => undefined);
    expect(shell.runs.map((each) => each.command)).to.deep.equal(['first']);
    // A reload puts a check before `first`; the queue runs the task again.
    schedules.splice(0, 1, ...parse([entry(['check', 'first', 'second'])]));
    shell.during = undefined;
    await run.execute({ schedule: 'long', occurrence: '2026-03-01T03:00:00.000Z', catchUp: false }, RUN_ID, new AbortController().signal);
    expect(shell.runs.map((each) => each.command)).to.deep.equal(['first', 'check', 'second']);
    expect((await runs.forSchedule('long', 1))[0]).to.deep.include({ status: 'succeeded', error: null });
  });

  it('skips (and records) an occurrence whose schedule was disabled or removed meanwhile', async () => {
    const { shell, runs, run } = setup(parse([{ name: 'off', schedule: '0 3 * * *', enabled: false, actions: [{ type: 'command', command: 'true' }] }]));
    await run.execute({ schedule: 'off', occurrence: '2026-03-01T03:00:00.000Z', catchUp: false }, RUN_ID);
    await run.execute({ schedule: 'gone', occurrence: '2026-03-01T03:00:00.000Z', catchUp: false }, RUN_ID);
    expect(shell.runs).to.deep.equal([]);
    expect((await runs.forSchedule('off', 1))[0]).to.deep.include({ status: 'skipped', error: 'disabled' });
    expect((await runs.forSchedule('gone', 1))[0]).to.deep.include({ status: 'skipped', error: 'no longer configured' });
  });
});
