import { expect } from 'chai';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import { approvalSummary, quotedValue, shownValue, unquotedApprovalSummary } from '../../../../src/domain/triggers/approval-summary.js';
import type { TriggerAction } from '../../../../src/domain/triggers/trigger.js';

/** A value's quoted beginning and end and the count between them, as shownValue writes a cut value. */
const CUT = /^(".*") \[… (\d+) characters left out …\] (".*")$/;

describe('approvalSummary', () => {
  describe('shownValue', () => {
    it('quotes a value that fits whole, as JSON', () => {
      expect(shownValue('main')).to.equal('"main"');
      expect(shownValue('')).to.equal('""');
      expect(shownValue('a\nb "c" \\')).to.equal('"a\\nb \\"c\\" \\\\"');
    });

    it('cuts by what is shown: a value of escapes takes no more room than another, and the count is of its characters', () => {
      for (const value of ['x'.repeat(1000), '\n'.repeat(1000), '\u202E'.repeat(1000)]) {
        const shown = shownValue(value, 300);
        const [, head, leftOut, tail] = CUT.exec(shown)!;
        expect(head.length - 2, JSON.stringify(value[0])).to.be.at.most(150);
        expect(tail.length - 2, JSON.stringify(value[0])).to.be.at.most(150);
        expect(JSON.parse(head).length + Number(leftOut) + JSON.parse(tail).length).to.equal(1000);
      }
    });

    it('never splits a surrogate pair, nor an escape', () => {
      const value = `a${'😀'.repeat(400)}`;
      const [, head, , tail] = CUT.exec(shownValue(value, 300))!;
      expect(JSON.parse(head)).to.match(/^a(😀)+$/u);
      expect(JSON.parse(tail)).to.match(/^(😀)+$/u);
      const tags = '\u{E0041}'.repeat(100);
      const [, tagHead, , tagTail] = CUT.exec(shownValue(tags, 300))!;
      expect(tagHead).to.match(/^"(\\udb40\\udc41)+"$/);
      expect(tagTail).to.match(/^"(\\udb40\\udc41)+"$/);
    });

    it('quotedValue escapes C1 controls and lone surrogates too, and reads back as the value', () => {
      const value = 'a\u0085b\u009Bc\uD800d\u061Ce\uFEFF';
      expect(quotedValue(value)).to.equal('"a\\u0085b\\u009bc\\ud800d\\u061ce\\ufeff"');
      expect(JSON.parse(quotedValue(value))).to.equal(value);
    });
  });

  it('escapes what shows as a blank but is not the space (other spaces, Hangul fillers, the braille blank, invisible marks), in values and in a prompt: none can pad a forged line into view', () => {
    const blanks = ['\u00A0', '\u2003', '\u3000', '\u3164', '\u115F', '\u1160', '\uFFA0', '\u2800', '\u034F', '\u17B4', '\u180B'];
    const forged = `${blanks.map((blank) => blank.repeat(20)).join('')}(end of the prompt)`;
    const prompt = approvalSummary({ type: 'agent', job: 'Summarise: {{body.text}}' } as TriggerAction, snapshotRequest({ text: `fine\n${forged}` }, {}, {}));
    const command = approvalSummary({ type: 'command', command: 'deploy {{body.text}}' } as TriggerAction, snapshotRequest({ text: forged }, {}, {}));
    for (const [name, summary] of [
      ['prompt', prompt],
      ['command', command],
    ]) {
      for (const blank of blanks) expect(summary, `${name}: U+${blank.codePointAt(0)!.toString(16)}`).not.to.contain(blank);
      expect(summary, name).to.contain('\\u00a0');
    }
    // A text hidden in variation selectors (one byte each, after a visible character) shows as escapes.
    const smuggled = `ok${String.fromCodePoint(0xe0100 + 0x72, 0xe0100 + 0x6d)}\uFE01\uFE0F\uFE0F`;
    const hidden = approvalSummary({ type: 'agent', job: '{{body.text}}' } as TriggerAction, snapshotRequest({ text: smuggled }, {}, {}));
    expect(hidden).to.contain('ok\\udb40\\udd72\\udb40\\udd6d\\ufe01\\ufe0f\\ufe0f');
    // The space itself, the tab (in a prompt) and an emoji's variation selector stay as they are.
    const kept = approvalSummary({ type: 'agent', job: '{{body.text}}' } as TriggerAction, snapshotRequest({ text: 'a b\tc ❤\uFE0F' }, {}, {}));
    expect(kept).to.contain('a b\tc ❤\uFE0F');
  });

  it('a webhook: its method and where it goes (no path, no headers), as before', () => {
    const action = { type: 'webhook', method: 'POST', url: 'https://hooks.test/x' } as TriggerAction;
    const request = snapshotRequest({ x: 'y' }, {}, {});
    expect(approvalSummary(action, request)).to.equal('webhook: POST https://hooks.test/…');
    expect(unquotedApprovalSummary(action, request)).to.equal(approvalSummary(action, request));
  });

  it('the earlier format, kept to compare with approvals stored before: values raw, cut with headAndTail', () => {
    const action = { type: 'command', command: 'deploy {{body.branch}}' } as TriggerAction;
    const request = snapshotRequest({ branch: 'main; rm -rf /' }, {}, {});
    expect(unquotedApprovalSummary(action, request)).to.equal('command: deploy {{body.branch}}\nAGW_ARG_1=main; rm -rf /');
    expect(approvalSummary(action, request)).to.equal('command: deploy {{body.branch}}\nAGW_ARG_1="main; rm -rf /"');
  });
});
