import { expect } from 'chai';
import { applyChange, canMove, JOB_STATUSES, type Job } from '../../../src/domain/jobs/job.js';
import { DomainError } from '../../../src/domain/errors/domain-error.js';

const job = (status: Job['status']): Job => ({
  id: 'j',
  job: 'p',
  status,
  source: { kind: 'api' },
  llmProvider: null,
  llmModel: null,
  branch: 'job/j',
  prUrl: null,
  runUrl: null,
  summary: null,
  error: null,
  log: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

describe('Job states', () => {
  const legal = ['queued→running', 'queued→succeeded', 'queued→failed', 'queued→cancelled', 'running→succeeded', 'running→failed', 'running→cancelled'];

  for (const from of JOB_STATUSES) {
    for (const to of JOB_STATUSES) {
      if (from === to) continue;
      const move = `${from}→${to}`;
      it(`${legal.includes(move) ? 'allows' : 'refuses'} ${move}`, () => {
        expect(canMove(from, to)).to.equal(legal.includes(move));
      });
    }
  }

  it('refuses an illegal move with a conflict naming both states', () => {
    try {
      applyChange(job('succeeded'), { status: 'running' }, new Date(1));
      expect.fail('expected a conflict');
    } catch (error) {
      expect(error).to.be.instanceOf(DomainError);
      expect((error as DomainError).code).to.equal('conflict');
      expect((error as Error).message).to.equal('Job j cannot move from succeeded to running');
    }
  });

  it('treats a repeated status as no move, so repeated events are harmless', () => {
    const next = applyChange(job('running'), { status: 'running', runUrl: 'https://run' }, new Date(5));
    expect(next).to.include({ status: 'running', runUrl: 'https://run' });
    expect(next.updatedAt).to.deep.equal(new Date(5));
  });

  it('changes only the fields given', () => {
    const next = applyChange({ ...job('running'), prUrl: 'https://pr' }, { summary: 'done' }, new Date(2));
    expect(next).to.include({ prUrl: 'https://pr', summary: 'done', status: 'running' });
  });
});
