import { expect } from 'chai';
import { didYouMean, editDistance, nearestName } from '../../../../src/domain/text/nearest-name.js';

describe('nearestName', () => {
  const fields = ['type', 'command', 'timeout', 'retries', 'approval'];

  it('finds the name one or two edits away: a letter missing, one too many, two swapped', () => {
    expect(nearestName('comand', fields)).to.equal('command');
    expect(nearestName('commandd', fields)).to.equal('command');
    expect(nearestName('timoeut', fields)).to.equal('timeout');
    expect(nearestName('aproval', fields)).to.equal('approval');
  });

  it('finds the name that differs in case only', () => {
    expect(nearestName('Command', fields)).to.equal('command');
    expect(nearestName('TYPE', fields)).to.equal('type');
  });

  it('finds the name a misspelling that also changes case meant (COMAND, Comand, TIMOEUT)', () => {
    expect(nearestName('COMAND', fields)).to.equal('command');
    expect(nearestName('Comand', fields)).to.equal('command');
    expect(nearestName('TIMOEUT', fields)).to.equal('timeout');
    expect(nearestName('TYP', fields)).to.equal('type');
  });

  it('names none the object already has: in {command, comand} the stray field is no misspelling of a missing command', () => {
    expect(nearestName('comand', fields, ['type', 'command'])).to.equal(undefined);
    expect(nearestName('Command', fields, ['command'])).to.equal(undefined);
    expect(didYouMean('comand', fields, ['type', 'command'])).to.equal('');
    expect(nearestName('comand', fields, ['type', 'timeout'])).to.equal('command');
  });

  it('allows one edit only against a short name, where two reach unrelated words', () => {
    expect(nearestName('typ', fields)).to.equal('type');
    expect(nearestName('url', fields)).to.equal(undefined);
  });

  it('finds nothing for a known name or one far from all', () => {
    expect(nearestName('command', fields)).to.equal(undefined);
    expect(nearestName('trigger_when', fields)).to.equal(undefined);
    expect(nearestName('x'.repeat(100_000), fields)).to.equal(undefined);
  });

  it('writes the hint to end a problem with, or nothing', () => {
    expect(didYouMean('comand', fields)).to.equal('; did you mean command?');
    expect(didYouMean('url', fields)).to.equal('');
  });
});

describe('editDistance (optimal string alignment, capped)', () => {
  it('counts an insertion, a deletion, a change and a swap of neighbours as one edit each', () => {
    expect(editDistance('comand', 'command', 2)).to.equal(1);
    expect(editDistance('commandd', 'command', 2)).to.equal(1);
    expect(editDistance('commend', 'command', 2)).to.equal(1);
    expect(editDistance('tiemout', 'timeout', 2)).to.equal(1);
    expect(editDistance('tiemuot', 'timeout', 2)).to.equal(2);
  });

  it('counts a swap of neighbours as one edit wherever it stands, and two swaps as two', () => {
    expect(editDistance('ba', 'ab', 1)).to.equal(1);
    expect(editDistance('xbay', 'xaby', 1)).to.equal(1);
    expect(editDistance('bacd', 'abdc', 2)).to.equal(2);
  });

  it('answers max + 1 for anything farther, however far: early rows past the cap end the count', () => {
    expect(editDistance('DATABASE_URL', 'LOG_LEVELS__', 2)).to.equal(3);
    expect(editDistance('abcdef', 'uvwxyz', 1)).to.equal(2);
    expect(editDistance('abc', 'abcdef', 2)).to.equal(3);
    expect(editDistance('', '', 1)).to.equal(0);
    expect(editDistance('', 'ab', 2)).to.equal(2);
  });
});
