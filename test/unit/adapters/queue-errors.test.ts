import { expect } from 'chai';
import { QueueErrors } from '../../../src/adapters/queue/queue-errors.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';

/** pg-boss's errors of a database that cannot be reached, as it emits them: its pool's and loops' as they are, its workers' as plain copies. */
const lost = (): unknown[] => [
  new Error('Connection terminated unexpectedly'),
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
  { message: 'Connection terminated unexpectedly (Queue: q, Worker: 1)', stack: 'Error: …', queue: 'q', worker: '1' },
  { message: 'terminating connection due to administrator command', code: '57P01', stack: 'error: …' },
  new Error('timeout exceeded when trying to connect'),
];

describe("QueueErrors (pg-boss's errors in the log)", () => {
  const setup = () => {
    const logger = new RecordingLogger();
    let now = 0;
    const errors = new QueueErrors(logger, 600_000, () => now);
    return { logger, errors, advance: (ms: number) => (now += ms) };
  };

  it('logs the first error of a database that cannot be reached at once, and leaves out the others while it stays so', () => {
    const { logger, errors, advance } = setup();
    for (const error of [...lost(), ...lost(), ...lost()]) {
      errors.report(error);
      advance(1000);
    }
    expect(logger.entries).to.have.length(1);
    expect(logger.entries[0].level).to.equal('error');
    expect(logger.entries[0].message).to.match(/^task queue error: the database cannot be reached/);
    expect(errors.reachable(), 'left out').to.equal(14);
  });

  it('logs every other error as it comes, also while the database cannot be reached', () => {
    const { logger, errors } = setup();
    errors.report(lost()[0]);
    const other = [
      Object.assign(new Error('relation "pgboss.job" does not exist'), { code: '42P01' }),
      { message: 'password authentication failed for user "gw"', code: '28P01' },
      'a string',
    ];
    for (const error of other) errors.report(error);
    errors.report(lost()[1]);
    expect(logger.entries.map((entry) => entry.message)).to.deep.equal([logger.entries[0].message, 'task queue error', 'task queue error', 'task queue error']);
    expect(logger.entries.slice(1).map((entry) => (entry.fields as { err: unknown }).err)).to.deep.equal(other);
  });

  it('reminds every ten minutes while the database stays unreachable, saying how many were left out', () => {
    const { logger, errors, advance } = setup();
    for (let i = 0; i < 700; i++) {
      errors.report(lost()[i % 5]);
      advance(1000);
    }
    expect(logger.entries).to.have.length(2);
    expect(logger.entries[1].fields).to.include({ repeatsLeftOut: 599 });
  });

  it('logs the next outage at once once a statement succeeded', () => {
    const { logger, errors } = setup();
    errors.report(lost()[0]);
    errors.report(lost()[1]);
    expect(errors.reachable()).to.equal(1);
    expect(errors.reachable(), 'reachable, nothing left out').to.equal(undefined);
    errors.report(lost()[2]);
    expect(logger.entries).to.have.length(2);
    expect(logger.entries[1].fields).to.not.have.property('repeatsLeftOut');
  });
});
