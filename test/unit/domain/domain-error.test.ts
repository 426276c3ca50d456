import { expect } from 'chai';
import { AiCallFailed } from '../../../src/domain/ai/ai-call-failed.js';
import { DomainError } from '../../../src/domain/errors/domain-error.js';

describe('DomainError', () => {
  it("gives a caller's error without a cause as one value per code and text, with no stack frames", () => {
    const first = new DomainError('invalid_input', 'Missing job field');
    const again = new DomainError('invalid_input', 'Missing job field');
    expect(again).to.equal(first);
    expect(first).to.be.instanceOf(DomainError).and.instanceOf(Error);
    expect(first.code).to.equal('invalid_input');
    expect(first.message).to.equal('Missing job field');
    expect(first.name).to.equal('DomainError');
    expect(first.stack).to.equal('DomainError: Missing job field');
  });

  it('keeps codes and texts apart', () => {
    const missing = new DomainError('invalid_input', 'Missing job field');
    expect(new DomainError('not_found', 'Missing job field')).to.not.equal(missing);
    expect(new DomainError('not_found', 'Missing job field').code).to.equal('not_found');
    expect(new DomainError('invalid_input', 'Missing key name')).to.not.equal(missing);
    expect(new DomainError('invalid_input', 'Missing key name').message).to.equal('Missing key name');
  });

  it('makes a new error for one with a cause, a server-side code, a subclass or a long text', () => {
    const cause = new Error('underneath');
    const caused = new DomainError('invalid_input', 'Duplicate', { cause });
    expect(caused).to.not.equal(new DomainError('invalid_input', 'Duplicate', { cause }));
    expect(caused.cause).to.equal(cause);

    const internal = new DomainError('internal', 'Could not store');
    expect(internal).to.not.equal(new DomainError('internal', 'Could not store'));
    expect(internal.stack).to.include('domain-error.test.ts'); // a server-side failure keeps where it happened

    expect(new AiCallFailed('not_configured', 'No model')).to.not.equal(new AiCallFailed('not_configured', 'No model'));

    const long = `Unknown llm_provider: ${'x'.repeat(300)}`;
    expect(new DomainError('invalid_input', long)).to.not.equal(new DomainError('invalid_input', long));
    expect(new DomainError('invalid_input', long).message).to.equal(long);
  });

  it('stays right past its table of shared errors, however many texts callers cause', () => {
    const texts = Array.from({ length: 600 }, (_, i) => `No stored request with id ${i}`);
    const errors = texts.map((text) => new DomainError('not_found', text));
    errors.forEach((error, i) => {
      expect(error.message).to.equal(texts[i]);
      expect(error.code).to.equal('not_found');
    });
    const latest = new DomainError('not_found', texts[599]);
    expect(latest.message).to.equal(texts[599]);
    expect(new DomainError('not_found', texts[599])).to.equal(latest);
  });
});
