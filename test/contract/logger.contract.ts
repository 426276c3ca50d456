import { expect } from 'chai';
import type { Logger } from '../../src/ports/logger.js';

export type Level = 'debug' | 'info' | 'warn' | 'error';

/** A line as a reader of the log sees it: its level, its message, its fields (the adapter's own, as time, left out). */
export interface LogLine {
  readonly level: Level;
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

export interface LoggerHarness {
  /** A logger that writes every level, debug included. */
  readonly logger: Logger;
  /** The lines written so far, by this logger and its children, in order. */
  lines(): LogLine[];
}

/**
 * What callers rely on from every Logger, the service's and the recording one the unit tests
 * read: each call is one line at its level, with its message and fields; a child adds its
 * fields to each of its lines; an Error under `err` stays readable.
 */
export const describeLoggerContract = (name: string, open: () => LoggerHarness): void => {
  describe(`Logger contract: ${name}`, () => {
    let harness: LoggerHarness;
    beforeEach(() => {
      harness = open();
    });

    it('writes one line per call, at its level, with its message and fields', () => {
      const { logger } = harness;
      logger.debug({ step: 1 }, 'looking');
      logger.info({ jobId: 'j-1', count: 2 }, 'job created');
      logger.warn({ attempt: 3, nested: { a: [1, 2] } }, 'retrying');
      logger.error({}, 'gave up');
      const lines = harness.lines();
      expect(lines.map(({ level, message }) => [level, message])).to.deep.equal([
        ['debug', 'looking'],
        ['info', 'job created'],
        ['warn', 'retrying'],
        ['error', 'gave up'],
      ]);
      expect(lines[0].fields).to.include({ step: 1 });
      expect(lines[1].fields).to.include({ jobId: 'j-1', count: 2 });
      expect(lines[2].fields).to.deep.include({ attempt: 3, nested: { a: [1, 2] } });
      expect(lines[1].fields, 'no fields of another line').not.to.have.property('step');
    });

    it("adds a child's fields to each of its lines, a child's child's too, and none to its parent's lines", () => {
      const child = harness.logger.child({ jobId: 'j-7' });
      const grandchild = child.child({ runner: 'local' });
      child.info({ step: 'clone' }, 'cloning');
      grandchild.warn({ exitCode: 2 }, 'agent failed');
      harness.logger.info({ other: true }, 'unrelated');
      const [fromChild, fromGrandchild, fromParent] = harness.lines();
      expect(fromChild.fields).to.include({ jobId: 'j-7', step: 'clone' });
      expect(fromChild.fields).not.to.have.property('runner');
      expect(fromGrandchild).to.deep.include({ level: 'warn', message: 'agent failed' });
      expect(fromGrandchild.fields).to.include({ jobId: 'j-7', runner: 'local', exitCode: 2 });
      expect(fromParent.fields).to.include({ other: true });
      expect(fromParent.fields).not.to.have.property('jobId');
    });

    it('keeps an Error passed as err readable: its message and where it was thrown', () => {
      const error = new Error('connect ECONNREFUSED 127.0.0.1:5432');
      harness.logger.child({ jobId: 'j-8' }).error({ err: error }, 'could not reach the database');
      const [line] = harness.lines();
      const err = line.fields.err as { message?: unknown; stack?: unknown };
      expect(err.message).to.equal('connect ECONNREFUSED 127.0.0.1:5432');
      expect(String(err.stack)).to.contain('logger.contract');
    });
  });
};
