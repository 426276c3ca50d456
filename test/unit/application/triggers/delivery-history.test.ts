import { expect } from 'chai';
import { DeliveryHistory, parseDeliveryFilter } from '../../../../src/application/triggers/delivery-history.js';
import { DomainError } from '../../../../src/domain/errors/domain-error.js';
import type { ActionRun } from '../../../../src/domain/triggers/action-run.js';
import { InMemoryActionRunRepository } from '../../../fakes/in-memory-action-run-repository.js';
import { InMemoryInboundRequestStore } from '../../../fakes/in-memory-inbound-request-store.js';

const REQUEST = '20000000-0000-4000-8000-000000000001';
const RUN_A = '30000000-0000-4000-8000-000000000001';
const RUN_B = '30000000-0000-4000-8000-000000000002';

const run = (runId: string, actionIndex: number, status: ActionRun['status']): ActionRun => ({
  runId,
  trigger: 'deploy',
  actionIndex,
  type: 'command',
  status,
  attempts: 1,
  startedAt: new Date('2026-11-24T10:00:01Z'),
  finishedAt: new Date('2026-11-24T10:00:02Z'),
  error: status === 'failed' ? 'exit code 2' : null,
  detail: { exitCode: status === 'failed' ? 2 : 0, output: 'done', requestId: REQUEST },
});

describe('DeliveryHistory', () => {
  const make = async () => {
    const requests = new InMemoryInboundRequestStore();
    const runs = new InMemoryActionRunRepository();
    await requests.record({
      id: REQUEST,
      watchPath: '/webhook',
      receivedAt: new Date('2026-11-24T10:00:00Z'),
      request: '{"body":{"a":1}}',
      triggers: ['deploy', 'notify'],
      runs: [
        { trigger: 'deploy', runId: RUN_A },
        { trigger: 'notify', runId: RUN_B },
      ],
      replayOf: null,
    });
    return { history: new DeliveryHistory(requests, runs), runs };
  };

  it('shows a stored request with each trigger run and its actions so far (none for a run still waiting)', async () => {
    const { history, runs } = await make();
    await runs.save(run(RUN_A, 1, 'failed'));
    await runs.save(run(RUN_A, 0, 'succeeded'));
    const delivery = await history.show(REQUEST);
    expect(delivery.request.request).to.equal('{"body":{"a":1}}');
    expect(delivery.runs.map((one) => [one.trigger, one.actions.map((action) => `${action.actionIndex}:${action.status}`)])).to.deep.equal([
      ['deploy', ['0:succeeded', '1:failed']],
      ['notify', []],
    ]);
  });

  it('is not_found, naming the id, for a request that is not stored', async () => {
    const { history } = await make();
    const error = await history.show('20000000-0000-4000-8000-000000000009').catch((e: unknown) => e);
    expect(error).to.be.instanceOf(DomainError).and.to.have.property('code', 'not_found');
    expect((error as Error).message).to.contain('20000000-0000-4000-8000-000000000009');
  });

  it('refuses a limit outside 1–500', async () => {
    const { history } = await make();
    for (const limit of [0, 501, 1.5, Number.NaN]) {
      expect(() => history.list({ limit }), String(limit)).to.throw(DomainError, /limit/);
    }
    expect(await history.list({ limit: 500 })).to.have.length(1);
  });
});

describe('parseDeliveryFilter', () => {
  it('reads path, trigger, before and limit, empty ones as absent, 50 by default', () => {
    expect(parseDeliveryFilter({ path: '/webhook', trigger: 'deploy', before: '2026-11-24T10:00:00Z', limit: '20' })).to.deep.equal({
      watchPath: '/webhook',
      trigger: 'deploy',
      before: new Date('2026-11-24T10:00:00Z'),
      limit: 20,
    });
    expect(parseDeliveryFilter({ path: '', trigger: undefined })).to.deep.equal({ limit: 50 });
    // As the list shows it (/api/webhook): the same endpoint as /webhook.
    expect(parseDeliveryFilter({ path: '/api/webhook' })).to.deep.equal({ watchPath: '/webhook', limit: 50 });
    expect(parseDeliveryFilter({ path: '/api/codehost/github' })).to.deep.equal({ watchPath: '/codehost/github', limit: 50 });
    expect(parseDeliveryFilter({ path: '/apiary' })).to.deep.equal({ watchPath: '/apiary', limit: 50 });
  });

  it('reads before_id, the id of the last delivery shown, with before (its time): the next page in the list order', () => {
    expect(parseDeliveryFilter({ before: '2026-11-24T10:00:00.123Z', before_id: 'ABCDEF00-0000-4000-8000-00000000000A', limit: '2' })).to.deep.equal({
      before: new Date('2026-11-24T10:00:00.123Z'),
      // As the database writes ids (lower case), so that every store orders it as its ids.
      beforeId: 'abcdef00-0000-4000-8000-00000000000a',
      limit: 2,
    });
    expect(parseDeliveryFilter({ before: '2026-11-24T10:00:00Z', before_id: '' })).to.deep.equal({ before: new Date('2026-11-24T10:00:00Z'), limit: 50 });
    expect(() => parseDeliveryFilter({ before_id: '20000000-0000-4000-8000-000000000001' })).to.throw(DomainError, /^before_id needs before/);
    for (const id of ['yesterday', '20000000-0000-4000-8000-00000000000', "' or 1=1 --"])
      expect(() => parseDeliveryFilter({ before: '2026-11-24T10:00:00Z', before_id: id }), id).to.throw(DomainError, /^before_id must be the id of a delivery/);
    expect(() => parseDeliveryFilter({ before: '2026-11-24T10:00:00Z', before_id: ['a', 'b'] })).to.throw(DomainError, /^before_id may be given once/);
  });

  it('names the parameter that is malformed or repeated', () => {
    expect(() => parseDeliveryFilter({ before: 'yesterday' })).to.throw(DomainError, /^before must be a time/);
    // Times JavaScript reads but the database cannot hold: a 400, not the database's error (a 500).
    expect(() => parseDeliveryFilter({ before: '0000-01-01T00:00:00Z' })).to.throw(DomainError, /^before must be a time/);
    expect(() => parseDeliveryFilter({ before: '+200000-01-01T00:00:00Z' })).to.throw(DomainError, /^before must be a time/);
    expect(parseDeliveryFilter({ before: '9999-12-31T00:00:00Z' }).before?.toISOString()).to.equal('9999-12-31T00:00:00.000Z');
    expect(() => parseDeliveryFilter({ limit: '0' })).to.throw(DomainError, /^limit must be a whole number from 1 to 500/);
    expect(() => parseDeliveryFilter({ limit: '501' })).to.throw(DomainError, /^limit must be a whole number from 1 to 500/);
    expect(() => parseDeliveryFilter({ limit: '-1' })).to.throw(DomainError, /^limit must be a whole number/);
    expect(() => parseDeliveryFilter({ limit: '1e3' })).to.throw(DomainError, /^limit/);
    expect(() => parseDeliveryFilter({ path: ['/a', '/b'] })).to.throw(DomainError, /^path may be given once/);
  });
});
