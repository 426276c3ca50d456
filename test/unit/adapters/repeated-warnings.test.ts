import { expect } from 'chai';
import { RepeatedWarnings } from '../../../src/adapters/queue/repeated-warnings.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';

const backlog = (count: number, queue = 'trigger-actions') => ({
  message: `Warning: large queue backlog: queue "${queue}" has ${count} jobs in the created or retry state, over its warning threshold of 10000. Your queue should be reviewed`,
  data: { name: queue, queuedCount: count },
});

describe('RepeatedWarnings (pg-boss warnings in the log)', () => {
  const setup = () => {
    const logger = new RecordingLogger();
    let now = 0;
    const warnings = new RepeatedWarnings(logger, 600_000, () => now);
    return { logger, warnings, advance: (ms: number) => (now += ms) };
  };

  it('logs the first warning of a kind at once, with its message and figures', () => {
    const { logger, warnings } = setup();
    warnings.report(backlog(95_000));
    expect(logger.entries).to.deep.equal([{ level: 'warn', fields: { warning: backlog(95_000) }, message: 'task queue warning' }]);
  });

  it('leaves out the repeats of a backlog within ten minutes, then logs the next one with how many were left out', () => {
    const { logger, warnings, advance } = setup();
    warnings.report(backlog(95_000));
    for (const count of [80_000, 60_000, 40_000]) {
      advance(60_000);
      warnings.report(backlog(count));
    }
    expect(logger.entries).to.have.length(1);
    advance(600_000);
    warnings.report(backlog(12_000));
    expect(logger.entries).to.have.length(2);
    expect(logger.entries[1].fields).to.deep.equal({ warning: backlog(12_000), repeatsLeftOut: 3 });
  });

  it('logs each queue and each kind on its own: one backlog does not hide another, nor a slow query', () => {
    const { logger, warnings } = setup();
    warnings.report(backlog(95_000, 'trigger-actions'));
    warnings.report(backlog(20_000, 'jobs'));
    warnings.report({ message: 'Warning: slow query. Your queues and/or database server should be reviewed', data: { elapsed: 31 } });
    warnings.report(backlog(94_000, 'trigger-actions'));
    expect(logger.entries.map((entry) => (entry.fields as { warning: { message: string } }).warning.message)).to.deep.equal([
      backlog(95_000, 'trigger-actions').message,
      backlog(20_000, 'jobs').message,
      'Warning: slow query. Your queues and/or database server should be reviewed',
    ]);
  });

  it("logs a slow query's statement and time but not its parameter values (a task's data)", () => {
    const { logger, warnings } = setup();
    warnings.report({
      message: 'Warning: slow query. Your queues and/or database server should be reviewed',
      data: { elapsed: 31.5, sql: 'INSERT INTO pgboss.job (data) VALUES ($1)', values: ['{"token":"s3cret"}'] },
    });
    expect(JSON.stringify(logger.entries)).not.to.contain('s3cret');
    expect(logger.entries[0].fields).to.deep.equal({
      warning: {
        message: 'Warning: slow query. Your queues and/or database server should be reviewed',
        data: { elapsed: 31.5, sql: 'INSERT INTO pgboss.job (data) VALUES ($1)', values: '1 left out' },
      },
    });
  });

  it('logs a warning without a message instead of failing', () => {
    const { logger, warnings } = setup();
    warnings.report(undefined);
    warnings.report('odd');
    expect(logger.entries).to.have.length(1);
    expect(logger.entries[0]).to.include({ level: 'warn', message: 'task queue warning' });
  });
});
