import { expect } from 'chai';
import { CheckReadiness } from '../../../../src/application/operations/check-readiness.js';
import { RecordingLogger } from '../../../fakes/recording-logger.js';

describe('CheckReadiness', () => {
  it('is ready when every dependency answers', async () => {
    const readiness = await new CheckReadiness(
      [
        { name: 'database', check: async () => undefined },
        { name: 'queue', check: async () => undefined },
      ],
      new RecordingLogger(),
    ).execute();
    expect(readiness).to.deep.equal({ ready: true, checks: { database: 'ok', queue: 'ok' } });
  });

  it('is not ready when one fails or hangs past its time limit, names it, and keeps the cause for the log', async () => {
    const logger = new RecordingLogger();
    const readiness = await new CheckReadiness(
      [
        { name: 'database', check: async () => Promise.reject(new Error('connection refused')) },
        { name: 'queue', check: () => new Promise(() => undefined) },
      ],
      logger,
      20,
    ).execute();
    expect(readiness).to.deep.equal({ ready: false, checks: { database: 'unavailable', queue: 'unavailable' } });
    expect(logger.entries.map((e) => (e.fields as { check: string }).check)).to.have.members(['database', 'queue']);
    const hung = logger.entries.find((e) => (e.fields as { check: string }).check === 'queue')!;
    expect((hung.fields as { err: Error }).err.message).to.equal('no answer within 20 ms');
  });
});
