import { expect } from 'chai';
import { NodeFetchHttpForwarder } from '../../../src/adapters/forwarder/node-fetch-http-forwarder.js';
import { HmacFingerprintKey } from '../../../src/adapters/crypto/hmac-fingerprint-key.js';
import type { TriggerRunTask } from '../../../src/application/triggers/fire-triggers.js';
import { RunTrigger } from '../../../src/application/triggers/run-trigger.js';
import { triggerCatalog } from '../../../src/container/trigger-catalog.js';
import { snapshotRequest } from '../../../src/domain/templates/request-snapshot.js';
import { validateTriggers } from '../../../src/domain/triggers/validate-triggers.js';
import type { JobLauncher } from '../../../src/ports/job-launcher.js';
import type { ShellExecutor } from '../../../src/ports/shell-executor.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { InMemoryActionRunRepository } from '../../fakes/in-memory-action-run-repository.js';
import { InMemoryInboundRequestStore } from '../../fakes/in-memory-inbound-request-store.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { SequentialIds } from '../../fakes/sequential-ids.js';
import { closedPort } from '../../support/ports.js';

/*
 * A webhook action that fails (its target unreachable) leaves a record (the run's page, the
 * deliveries) and log lines (info and warn): none of them holds the secret of its URL's path or
 * query, nor of its headers.
 */
describe('a failed webhook action: its record and its log lines', () => {
  it('name the target by scheme and host, never the secrets of its URL or headers', async () => {
    const port = await closedPort();
    const { triggers, problems } = validateTriggers(
      [
        {
          name: 'notify',
          watch_path: '/webhook',
          enabled: true,
          actions: [
            {
              type: 'webhook',
              url: `http://127.0.0.1:${port}/services/T0SECRET/B0SECRET/PATHSECRET?token=QUERYSECRET`,
              headers: { Authorization: 'Bearer HEADERSECRET' },
            },
          ],
        },
      ],
      'test',
      triggerCatalog(),
    );
    expect(problems).to.deep.equal([]);
    const requests = new InMemoryInboundRequestStore();
    const requestId = '20000000-0000-4000-8000-000000000001';
    const runId = '30000000-0000-4000-8000-000000000001';
    await requests.record({
      id: requestId,
      watchPath: '/webhook',
      receivedAt: new Date(),
      request: JSON.stringify(snapshotRequest({}, {}, {})),
      triggers: ['notify'],
      runs: [{ trigger: 'notify', runId }],
      replayOf: null,
    });
    const runs = new InMemoryActionRunRepository();
    const logger = new RecordingLogger();
    const runner = new RunTrigger(
      { current: () => triggers },
      runs,
      requests,
      {} as ShellExecutor,
      new NodeFetchHttpForwarder({ attempts: 1, backoffMs: 1, timeoutMs: 5000 }),
      {} as JobLauncher,
      new SequentialIds(),
      new FixedClock(),
      logger,
      { triggersDir: '/srv', commandTimeoutMs: 1000, commandEnv: {}, fingerprintKey: new HmacFingerprintKey('k'.repeat(43)) },
    );
    const task: TriggerRunTask = { runId, trigger: 'notify', watchPath: '/webhook', firedAt: new Date().toISOString(), requestId };
    await runner.execute(task);
    const [record] = runs.runs;
    expect(record).to.include({ status: 'failed' });
    expect(record.error).to.contain(`http://127.0.0.1:${port}/…`);
    const written = JSON.stringify({ runs: runs.runs, log: logger.entries });
    expect(logger.entries.some((entry) => entry.message === 'trigger action failed')).to.equal(true);
    for (const secret of ['T0SECRET', 'B0SECRET', 'PATHSECRET', 'QUERYSECRET', 'HEADERSECRET']) expect(written).to.not.contain(secret);
  });
});
