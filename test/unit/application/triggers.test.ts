import { expect } from 'chai';
import { FireTriggers, requestOf, TRIGGER_RUN_QUEUE, type TriggerRunTask } from '../../../src/application/FireTriggers.js';
import { RunTrigger } from '../../../src/application/RunTrigger.js';
import { DomainError } from '../../../src/domain/errors/DomainError.js';
import { snapshotRequest } from '../../../src/domain/templates/RequestSnapshot.js';
import { untrustedJobNotice } from '../../../src/domain/templates/renderPrompt.js';
import { validateTriggers } from '../../../src/domain/triggers/validateTriggers.js';
import type { HttpForwarder, OutboundRequest, OutboundResult } from '../../../src/ports/HttpForwarder.js';
import type { JobLaunch, JobLauncher } from '../../../src/ports/JobLauncher.js';
import type { ShellExecutor, ShellRun } from '../../../src/ports/ShellExecutor.js';
import { FixedClock } from '../../fakes/FixedClock.js';
import { InMemoryActionRunRepository } from '../../fakes/InMemoryActionRunRepository.js';
import { InMemoryTaskQueue } from '../../fakes/InMemoryTaskQueue.js';
import { RecordingLogger } from '../../fakes/RecordingLogger.js';
import { SequentialIds } from '../../fakes/SequentialIds.js';

class ScriptedShell implements ShellExecutor {
  readonly commands: string[] = [];
  constructor(private readonly exitCodes: number[] = []) {}
  async run(command: string, options: { cwd: string; timeoutMs: number }): Promise<ShellRun> {
    this.commands.push(`${options.cwd}$ ${command} (${options.timeoutMs})`);
    return { exitCode: this.exitCodes.shift() ?? 0, timedOut: false, aborted: false, durationMs: 1, output: 'out' };
  }
}

class RecordingForwarder implements HttpForwarder {
  readonly sent: OutboundRequest[] = [];
  constructor(private readonly result: OutboundResult = { ok: true, status: 200, attempts: 1 }) {}
  async send(request: OutboundRequest): Promise<OutboundResult> {
    this.sent.push(request);
    return this.result;
  }
}

class RecordingJobs implements JobLauncher {
  readonly launched: JobLaunch[] = [];
  constructor(private readonly available = true) {}
  async launch(request: JobLaunch): Promise<string> {
    if (!this.available) throw new DomainError('not_configured', 'Jobs are not configured');
    this.launched.push(request);
    return 'job-1';
  }
}

const { triggers } = validateTriggers(
  [
    {
      name: 'build',
      watch_path: '/webhook',
      enabled: true,
      actions: [
        { type: 'command', command: 'git pull {{body.branch}}' },
        { type: 'command', command: 'make', timeout: 5, retries: 1 },
        { type: 'webhook', url: 'https://hooks.test/x', headers: { 'x-token': 't' }, vars: { env: 'prod' } },
        { type: 'webhook', url: 'https://hooks.test/y', method: 'GET', vars: { ignored: true } },
        { type: 'agent', job: 'Review {{body.branch}}', llm_provider: 'openai' },
      ],
    },
    { name: 'notify', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] },
    { name: 'off', watch_path: '/webhook', enabled: false, actions: [{ type: 'command', command: 'false' }] },
  ],
  'test',
);

const request = snapshotRequest({ branch: 'main; rm -rf /' }, {}, { 'x-api-key': 'agw_x', 'x-event': 'push' });

describe('FireTriggers', () => {
  it('stores one task per enabled matching trigger and returns their names in file order', async () => {
    const queue = new InMemoryTaskQueue();
    const fire = new FireTriggers(triggers, queue, new SequentialIds(), new FixedClock(), new RecordingLogger());
    expect(await fire.execute({ watchPath: '/webhook', request })).to.deep.equal(['build', 'notify']);
    expect(queue.tasks.map((t) => [t.queue, (t.payload as TriggerRunTask).trigger])).to.deep.equal([
      [TRIGGER_RUN_QUEUE, 'build'],
      [TRIGGER_RUN_QUEUE, 'notify'],
    ]);
    const task = queue.tasks[0].payload as TriggerRunTask;
    expect(requestOf(task).headers).to.deep.equal({ 'x-event': 'push' });
  });

  it('keeps the request exactly, NUL characters, lone surrogates and key order included', async () => {
    const queue = new InMemoryTaskQueue();
    const fire = new FireTriggers(triggers, queue, new SequentialIds(), new FixedClock(), new RecordingLogger());
    const body = { z: 'a\u0000b', a: '\ud800', m: [1] };
    await fire.execute({ watchPath: '/webhook', request: snapshotRequest(body, {}, {}) });
    const stored = requestOf(queue.tasks[0].payload as TriggerRunTask).body;
    expect(stored).to.deep.equal(body);
    expect(Object.keys(stored as object)).to.deep.equal(['z', 'a', 'm']);
  });

  it('stores nothing for a path no trigger watches', async () => {
    const queue = new InMemoryTaskQueue();
    const fire = new FireTriggers(triggers, queue, new SequentialIds(), new FixedClock(), new RecordingLogger());
    expect(await fire.execute({ watchPath: '/ping', request })).to.deep.equal([]);
    expect(queue.tasks).to.deep.equal([]);
  });

  it('fails when a task cannot be stored, so the caller is not told it was accepted', async () => {
    const queue = new InMemoryTaskQueue();
    queue.failNext = true;
    const fire = new FireTriggers(triggers, queue, new SequentialIds(), new FixedClock(), new RecordingLogger());
    const error = await fire.execute({ watchPath: '/webhook', request }).catch((e: Error) => e);
    expect(error).to.be.instanceOf(Error);
  });
});

describe('RunTrigger', () => {
  const task: TriggerRunTask = { runId: '30000000-0000-4000-8000-000000000001', trigger: 'build', watchPath: '/webhook', firedAt: '2026-01-01T00:00:00Z', request: JSON.stringify(request) };
  const make = (shell = new ScriptedShell(), forwarder = new RecordingForwarder(), jobs = new RecordingJobs(), logger = new RecordingLogger()) => {
    const runs = new InMemoryActionRunRepository();
    const runner = new RunTrigger(triggers, runs, shell, forwarder, jobs, new SequentialIds(), new FixedClock(), logger, { triggersDir: '/srv/triggers', commandTimeoutMs: 60_000 });
    return { runner, runs, shell, forwarder, jobs, logger };
  };

  it('runs every action in order, in the triggers directory, with shell-escaped values', async () => {
    const { runner, runs, shell, forwarder, jobs } = make();
    await runner.execute(task);
    expect(shell.commands).to.deep.equal([`/srv/triggers$ git pull 'main; rm -rf /' (60000)`, '/srv/triggers$ make (5000)']);
    expect(forwarder.sent).to.deep.equal([
      { url: 'https://hooks.test/x', method: 'POST', headers: { 'x-token': 't' }, json: { env: 'prod', data: { branch: 'main; rm -rf /' } } },
      { url: 'https://hooks.test/y', method: 'GET', headers: {}, json: undefined },
    ]);
    // The agent's prompt holds the request's value inside an untrusted block (nonce: the first id).
    const tag = `untrusted-input-${new SequentialIds().next().replace(/-/g, '')}`;
    expect(jobs.launched).to.deep.equal([{
      job: `${untrustedJobNotice(tag.slice('untrusted-input-'.length))}\n\nReview <${tag} source="body.branch">main; rm -rf /</${tag}>`,
      llmProvider: 'openai',
      llmModel: undefined,
      source: { kind: 'trigger', name: 'build' },
    }]);
    expect(runs.runs.map((r) => [r.actionIndex, r.type, r.status])).to.deep.equal([
      [0, 'command', 'succeeded'],
      [1, 'command', 'succeeded'],
      [2, 'webhook', 'succeeded'],
      [3, 'webhook', 'succeeded'],
      [4, 'agent', 'succeeded'],
    ]);
  });

  it('goes on after a failed action and records the failure', async () => {
    const { runner, runs, shell } = make(new ScriptedShell([2]));
    await runner.execute(task);
    expect(shell.commands).to.have.length(2);
    expect(runs.runs[0]).to.include({ status: 'failed', attempts: 1, error: 'exit code 2' });
    expect(runs.runs[4].status).to.equal('succeeded');
  });

  it('retries a command only as configured', async () => {
    const { runner, runs, shell } = make(new ScriptedShell([0, 1, 1]));
    await runner.execute(task);
    expect(shell.commands.filter((c) => c.includes('make'))).to.have.length(2);
    expect(runs.runs[1]).to.include({ status: 'failed', attempts: 2 });
  });

  it('records a failed webhook with its attempts', async () => {
    const { runner, runs } = make(undefined, new RecordingForwarder({ ok: false, status: 503, attempts: 4, error: 'HTTP 503' }));
    await runner.execute(task);
    expect(runs.runs[2]).to.include({ status: 'failed', attempts: 4, error: 'HTTP 503' });
    expect(runs.runs[2].detail).to.deep.equal({ httpStatus: 503 });
  });

  it('records an agent action as not runnable, with a log line, while jobs are not configured', async () => {
    const { runner, runs, logger } = make(undefined, undefined, new RecordingJobs(false));
    await runner.execute(task);
    expect(runs.runs[4]).to.include({ status: 'not_runnable', error: 'Jobs are not configured' });
    expect(logger.entries.some((e) => e.level === 'warn' && e.message === 'trigger action not runnable')).to.equal(true);
  });

  it('does not repeat actions already recorded when a task runs again', async () => {
    const { runner, runs, shell } = make();
    await runs.save({ runId: task.runId, trigger: 'build', actionIndex: 0, type: 'command', status: 'succeeded', attempts: 1, startedAt: new Date(), finishedAt: new Date(), error: null, detail: {} });
    await runner.execute(task);
    expect(shell.commands).to.deep.equal(['/srv/triggers$ make (5000)']);
  });

  it('drops, with a warning, a queued run of a trigger that is no longer configured', async () => {
    const { runner, runs, logger } = make();
    await runner.execute({ ...task, trigger: 'removed' });
    expect(runs.runs).to.deep.equal([]);
    expect(logger.entries.map((e) => e.message)).to.include('trigger is no longer configured; its queued run is dropped');
  });
});
