import { expect } from 'chai';
import { CollectOperationalFigures, TRIGGER_DISPATCH_DEPTH } from '../../../../src/application/operations/collect-operational-figures.js';
import { InMemoryActionRunRepository } from '../../../fakes/in-memory-action-run-repository.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';
import { InMemoryJobRepository } from '../../../fakes/in-memory-job-repository.js';
import { InMemoryTaskQueue } from '../../../fakes/in-memory-task-queue.js';

describe('CollectOperationalFigures', () => {
  it('reports stored requests whose trigger runs are not queued yet as a depth of their own, beside the queues', async () => {
    const queue = new InMemoryTaskQueue(undefined, { queues: ['trigger-run'] });
    const requests = new InMemoryInboundRequestStore();
    const figures = new CollectOperationalFigures(queue, new InMemoryJobRepository(), new InMemoryActionRunRepository(), undefined, requests);
    const stored = (id: string, runs: number) => ({
      id,
      watchPath: '/webhook',
      receivedAt: new Date(),
      request: '{}',
      triggers: [],
      runs: Array.from({ length: runs }, (_, i) => ({ trigger: 'deploy', runId: `${id}-${i}` })),
      replayOf: null,
    });
    await requests.record(stored('a', 1));
    await requests.record(stored('b', 2));
    await requests.record(stored('none', 0));
    await queue.enqueue('trigger-run', {});
    expect((await figures.execute()).queueDepth).to.deep.equal({ 'trigger-run': 1, [TRIGGER_DISPATCH_DEPTH]: 2 });
    await requests.markDispatched(['a', 'b']);
    expect((await figures.execute()).queueDepth).to.deep.equal({ 'trigger-run': 1, [TRIGGER_DISPATCH_DEPTH]: 0 });
    // Without the store (the CLI's figures), the queues alone.
    expect((await new CollectOperationalFigures(queue, new InMemoryJobRepository(), new InMemoryActionRunRepository()).execute()).queueDepth).to.deep.equal({
      'trigger-run': 1,
    });
  });
});
