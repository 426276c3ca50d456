import { expect } from 'chai';
import { AdminOverview } from '../../../../src/application/operations/admin-overview.js';
import { CollectOperationalFigures } from '../../../../src/application/operations/collect-operational-figures.js';
import { MessagingChannels } from '../../../../src/application/messaging/messaging-channels.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { FireTriggers, type TriggerRunTask } from '../../../../src/application/triggers/fire-triggers.js';
import { RunTrigger } from '../../../../src/application/triggers/run-trigger.js';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import type { HttpForwarder } from '../../../../src/ports/http-forwarder.js';
import type { ShellExecutor } from '../../../../src/ports/shell-executor.js';
import { FixedClock } from '../../../fakes/fixed-clock.js';
import { InMemoryActionRunRepository } from '../../../fakes/in-memory-action-run-repository.js';
import { InMemoryConversationStore } from '../../../fakes/in-memory-conversation-store.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { InMemoryStorageFigures } from '../../../fakes/in-memory-storage-figures.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';
import { SequentialIds } from '../../../fakes/sequential-ids.js';
import { InMemoryTriggerLanes } from '../../../fakes/in-memory-trigger-lanes.js';

const { triggers } = validateTriggers(
  [
    {
      name: 'deploy',
      watch_path: '/webhook',
      enabled: true,
      actions: [
        { type: 'command', command: 'deploy --branch {{body.branch}} --by "{{headers.x-user}}"' },
        { type: 'webhook', url: 'https://hooks.test/done', headers: { authorization: 'Bearer secret-token' } },
        { type: 'agent', job: 'Summarize {{body.branch}}' },
      ],
    },
  ],
  'test',
  triggerCatalog(),
);

const setup = () => {
  const runs = new InMemoryActionRunRepository();
  const requests = new InMemoryInboundRequestStore();
  const queue = new InMemoryTaskQueue();
  const jobs = new InMemoryJobRepository();
  const ids = new SequentialIds();
  const shell: ShellExecutor = {
    run: async () => ({ exitCode: 3, timedOut: false, aborted: false, durationMs: 12, output: 'deploying…\nerror: no such branch\n' }),
  };
  const forwarder: HttpForwarder = { send: async () => ({ ok: true, status: 204, attempts: 1 }) };
  const runner = new RunTrigger(triggers, runs, requests, shell, forwarder, { launch: async () => 'job-7' }, ids, new FixedClock(), new RecordingLogger(), {
    triggersDir: '/tmp',
    commandTimeoutMs: 1000,
    commandEnv: {},
  });
  const fire = new FireTriggers(triggers, requests, queue, ids, new FixedClock(), new RecordingLogger(), new InMemoryTriggerLanes());
  const overview = new AdminOverview({
    triggers,
    runs,
    requests,
    jobs,
    figures: new CollectOperationalFigures(queue, jobs, runs),
    storage: new InMemoryStorageFigures(['jobs']),
    channels: new MessagingChannels([]),
    conversations: new InMemoryConversationStore(),
    facts: { version: 'test', startedAt: new Date(0), databaseEngine: 'memory', jobRunner: 'none' },
  });
  return { overview, fire, runner, queue, runs };
};

describe('AdminOverview#triggerRun', () => {
  it('shows each action of a run rendered for the request that fired it: the command with its token values, the webhook without its headers, the agent with its job', async () => {
    const { overview, fire, runner, queue } = setup();
    await fire.execute({ watchPath: '/webhook', request: snapshotRequest({ branch: 'main; rm -rf /' }, {}, { 'x-user': 'ada', 'x-api-key': 'agw_secret' }) });
    await fire.dispatched();
    const task = queue.tasks[0].payload as TriggerRunTask;
    await runner.execute(task);
    const view = await overview.triggerRun(task.runId);
    expect(view).to.include({ runId: task.runId, trigger: 'deploy', configured: true });
    expect(view?.request?.id).to.equal(task.requestId);
    const [command, webhook, agent] = view!.actions;
    expect(command.run).to.include({ status: 'failed', error: 'exit code 3' });
    expect(command.run.detail).to.include({ exitCode: 3, output: 'deploying…\nerror: no such branch\n' });
    expect(command.rendered).to.deep.equal({
      type: 'command',
      template: 'deploy --branch {{body.branch}} --by "{{headers.x-user}}"',
      values: [
        { token: '{{body.branch}}', variable: 'AGW_ARG_1', value: 'main; rm -rf /' },
        { token: '{{headers.x-user}}', variable: 'AGW_ARG_2', value: 'ada' },
      ],
    });
    expect(webhook.rendered).to.deep.equal({ type: 'webhook', method: 'POST', url: 'https://hooks.test/done' });
    expect(JSON.stringify(view)).to.not.contain('secret-token').and.to.not.contain('agw_secret');
    expect(agent.rendered).to.deep.equal({ type: 'agent', template: 'Summarize {{body.branch}}', jobId: 'job-7' });
  });

  it('is null for a run with no recorded action', async () => {
    expect(await setup().overview.triggerRun('30000000-0000-4000-8000-00000000dead')).to.equal(null);
  });

  it('shows the record without values when the request is no longer stored, and without rendering when the trigger is gone', async () => {
    const { overview, runs } = setup();
    const at = new Date('2026-11-24T15:04:00Z');
    await runs.save({
      runId: 'r1',
      trigger: 'deploy',
      actionIndex: 0,
      type: 'command',
      status: 'succeeded',
      attempts: 1,
      startedAt: at,
      finishedAt: at,
      error: null,
      detail: { requestId: 'gone' },
    });
    await runs.save({
      runId: 'r2',
      trigger: 'removed',
      actionIndex: 0,
      type: 'command',
      status: 'succeeded',
      attempts: 1,
      startedAt: at,
      finishedAt: at,
      error: null,
      detail: {},
    });
    const kept = await overview.triggerRun('r1');
    expect(kept?.request).to.equal(null);
    expect(kept?.actions[0].rendered).to.deep.include({ type: 'command', values: null });
    const removed = await overview.triggerRun('r2');
    expect(removed).to.include({ configured: false });
    expect(removed?.actions[0].rendered).to.equal(null);
  });
});

describe('AdminOverview#tableSizes', () => {
  it('reports the storage figures of the service tables', async () => {
    expect(await setup().overview.tableSizes()).to.deep.equal([{ table: 'jobs', rowsEstimate: 0, bytes: 8192 }]);
  });
});
