import { expect } from 'chai';
import { HmacFingerprintKey } from '../../../../src/adapters/crypto/hmac-fingerprint-key.js';
import { AdminOverview } from '../../../../src/application/operations/admin-overview.js';
import { CollectOperationalFigures } from '../../../../src/application/operations/collect-operational-figures.js';
import { MessagingChannels } from '../../../../src/application/messaging/messaging-channels.js';
import { Swappable } from '../../../../src/container/swappable.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { FireTriggers, type TriggerRunTask } from '../../../../src/application/triggers/fire-triggers.js';
import { RunTrigger } from '../../../../src/application/triggers/run-trigger.js';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import type { Trigger } from '../../../../src/domain/triggers/trigger.js';
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
        { type: 'webhook', url: 'https://hooks.test/services/T0/B0/url-secret-path?token=url-secret-query', headers: { authorization: 'Bearer secret-token' } },
        { type: 'agent', job: 'Summarize {{body.branch}}' },
      ],
    },
  ],
  'test',
  triggerCatalog(),
);

/** The installation's key, as the service gives it to the runs and to the overview. */
const fingerprintKey = new HmacFingerprintKey('k'.repeat(43));

const setup = () => {
  // The trigger file as loaded: a test replaces it as a reload would.
  const source = new Swappable<readonly Trigger[]>(triggers);
  const runs = new InMemoryActionRunRepository();
  const requests = new InMemoryInboundRequestStore();
  const queue = new InMemoryTaskQueue();
  const jobs = new InMemoryJobRepository();
  const ids = new SequentialIds();
  const shell: ShellExecutor = {
    run: async () => ({ exitCode: 3, timedOut: false, aborted: false, durationMs: 12, output: 'deploying…\nerror: no such branch\n' }),
  };
  const forwarder: HttpForwarder = { send: async () => ({ ok: true, status: 204, attempts: 1 }) };
  const runner = new RunTrigger(source, runs, requests, shell, forwarder, { launch: async () => 'job-7' }, ids, new FixedClock(), new RecordingLogger(), {
    triggersDir: '/tmp',
    commandTimeoutMs: 1000,
    commandEnv: {},
    fingerprintKey,
  });
  const fire = new FireTriggers(source, requests, queue, ids, new FixedClock(), new RecordingLogger(), new InMemoryTriggerLanes());
  const overview = new AdminOverview({
    triggers: source,
    runs,
    requests,
    jobs,
    figures: new CollectOperationalFigures(queue, jobs, runs),
    storage: new InMemoryStorageFigures(['jobs']),
    channels: new MessagingChannels([]),
    conversations: new InMemoryConversationStore(),
    facts: { version: 'test', startedAt: new Date(0), databaseEngine: 'memory', jobRunner: 'none' },
    fingerprintKey,
  });
  return { overview, fire, runner, queue, runs, source };
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
    // Its URL as shownWebhookTarget shows it: the path and query of a webhook URL may be its secret.
    expect(webhook.rendered).to.deep.equal({ type: 'webhook', method: 'POST', target: 'https://hooks.test/…' });
    expect(JSON.stringify(view)).to.not.contain('secret-token').and.to.not.contain('agw_secret').and.to.not.contain('url-secret');
    expect(agent.rendered).to.deep.equal({ type: 'agent', template: 'Summarize {{body.branch}}', jobId: 'job-7' });
  });

  it('after a reload of the trigger file, shows each record with the action it ran (found by its fingerprint, not by its index), and none for an action changed since', async () => {
    const { overview, fire, runner, queue, source } = setup();
    await fire.execute({ watchPath: '/webhook', request: snapshotRequest({ branch: 'main' }, {}, { 'x-user': 'ada' }) });
    await fire.dispatched();
    const task = queue.tasks[0].payload as TriggerRunTask;
    await runner.execute(task);
    // Reloaded: a command inserted first (every action moves one place), the webhook's URL changed.
    const reloaded = validateTriggers(
      [
        {
          name: 'deploy',
          watch_path: '/webhook',
          enabled: true,
          actions: [
            { type: 'command', command: 'notify --start {{body.branch}}' },
            { type: 'command', command: 'deploy --branch {{body.branch}} --by "{{headers.x-user}}"' },
            { type: 'webhook', url: 'https://hooks.test/finished', headers: { authorization: 'Bearer secret-token' } },
            { type: 'agent', job: 'Summarize {{body.branch}}' },
          ],
        },
      ],
      'test',
      triggerCatalog(),
    );
    expect(reloaded.problems).to.deep.equal([]);
    source.replace(reloaded.triggers);
    const view = await overview.triggerRun(task.runId);
    expect(view?.actions.map(({ run }) => [run.actionIndex, run.type])).to.deep.equal([
      [0, 'command'],
      [1, 'webhook'],
      [2, 'agent'],
    ]);
    const [command, changed, job] = view!.actions;
    // Not the inserted command now at index 0: the one that ran.
    expect(command.rendered).to.deep.include({ type: 'command', template: 'deploy --branch {{body.branch}} --by "{{headers.x-user}}"' });
    // Its URL changed: the action that ran is no longer configured, and no other is shown in its stead.
    expect(changed.rendered).to.equal(null);
    // Now at index 3, shown for the record at index 2 (where the reloaded file has the webhook).
    expect(job.rendered).to.deep.equal({ type: 'agent', template: 'Summarize {{body.branch}}', jobId: 'job-7' });
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
