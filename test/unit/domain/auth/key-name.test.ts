import { expect } from 'chai';
import { MAX_KEY_NAME_LENGTH, validateKeyName } from '../../../../src/domain/auth/key-name.js';
import { DomainError } from '../../../../src/domain/errors/domain-error.js';

const refusal = (raw: unknown): string => {
  try {
    validateKeyName(raw);
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError).and.to.include({ code: 'invalid_input' });
    return (error as DomainError).message;
  }
  throw new Error(`${JSON.stringify(raw)} was taken`);
};

describe('validateKeyName', () => {
  it('takes a printable name, trimmed; keeps the joiners of emoji sequences and scripts (U+200D, U+200C)', () => {
    expect(validateKeyName('  ci deploy  ')).to.equal('ci deploy');
    expect(validateKeyName('family 👨\u200d👩\u200d👧')).to.equal('family 👨\u200d👩\u200d👧');
    expect(validateKeyName('می\u200cخواهم')).to.equal('می\u200cخواهم');
    expect(validateKeyName('ü 🎉 日本')).to.equal('ü 🎉 日本');
  });

  it('refuses a missing, blank or too long name', () => {
    expect(refusal(undefined)).to.equal('Missing key name');
    expect(refusal('   ')).to.equal('Missing key name');
    expect(refusal('x'.repeat(MAX_KEY_NAME_LENGTH + 1))).to.equal(`Key name is longer than ${MAX_KEY_NAME_LENGTH} characters`);
  });

  it('refuses control characters and invisible ones (bidi controls, zero widths, the byte-order mark, separators), naming the first', () => {
    expect(refusal('deploy \u202etsil\u202c ok')).to.match(/^Key name holds U\+202E; a name may hold no control character/);
    for (const [name, code] of [
      ['a\u0000b', '0000'],
      ['a\nb', '000A'],
      ['a\u007fb', '007F'],
      ['a\u009bb', '009B'],
      ['ok\u200b', '200B'],
      ['a\u2066b\u2069', '2066'],
      ['a\ufeffb', 'FEFF'],
      ['a\u00adb', '00AD'],
      ['a\u2028b', '2028'],
      ['a\u{e0041}b', 'E0041'],
    ] as const) {
      expect(refusal(name), JSON.stringify(name)).to.contain(`holds U+${code};`);
    }
  });
});
