import { expect } from 'chai';
import { terminalField, terminalSafe } from '../../../src/cli/terminal-text.js';

describe('terminalSafe', () => {
  it('shows escape sequences, carriage returns and bidirectional overrides as escapes; keeps lines, tabs and text', () => {
    expect(terminalSafe('\u001b]52;c;cHduZWQ=\u0007')).to.equal('\\x1b]52;c;cHduZWQ=\\x07');
    expect(terminalSafe('ok\rFAKE')).to.equal('ok\\x0dFAKE');
    expect(terminalSafe('\u009b2J \u007f')).to.equal('\\x9b2J \\x7f');
    expect(terminalSafe('abc\u202edef\u2066')).to.equal('abc\\u202edef\\u2066');
    expect(terminalSafe('line 1\n\tline 2 ü 🎉')).to.equal('line 1\n\tline 2 ü 🎉');
  });
});

describe('terminalField', () => {
  it('shows line feeds and tabs as escapes too: a value inside a row cannot end it and forge the next', () => {
    expect(terminalField('deploy\n  on   forged\t/x')).to.equal('deploy\\x0a  on   forged\\x09/x');
    expect(terminalField('ok\u001b[2J\u202e')).to.equal('ok\\x1b[2J\\u202e');
    expect(terminalField('plain name ü 🎉')).to.equal('plain name ü 🎉');
  });
});
