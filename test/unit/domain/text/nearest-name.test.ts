import { expect } from 'chai';
import { didYouMean, nearestName } from '../../../../src/domain/text/nearest-name.js';

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
