import { expect } from 'chai';
import { badge, bytes, duration, excerpt, relative, stamp } from '../../../src/adapters/http/admin/present.js';

describe('admin UI presentation', () => {
  const now = new Date('2026-11-24T15:04:30Z');

  describe('stamp', () => {
    it('shows one format with the time zone, the ISO moment for <time datetime>, and how long ago', () => {
      expect(stamp(new Date('2026-11-24T14:59:10.123Z'), now)).to.deep.equal({
        iso: '2026-11-24T14:59:10.123Z',
        text: '2026-11-24 14:59 UTC',
        ago: '5 min ago',
      });
    });

    it('says how long ago in the largest unit that reads naturally, and nothing beyond a month', () => {
      const ago = (seconds: number) => relative(new Date(now.getTime() - seconds * 1000), now);
      expect([ago(5), ago(90), ago(3 * 3600), ago(47 * 3600), ago(3 * 86400), ago(40 * 86400), ago(-600)]).to.deep.equal([
        'just now',
        '1 min ago',
        '3 h ago',
        '47 h ago',
        '3 days ago',
        null,
        'in 10 min',
      ]);
    });
  });

  describe('excerpt', () => {
    it('keeps a short text whole, with whitespace runs as single spaces', () => {
      expect(excerpt('  Tidy\n\nthe   README ', 40)).to.equal('Tidy the README');
    });

    it('cuts a long text at a word boundary with an ellipsis, never inside a word', () => {
      const cut = excerpt('Refactor the payment module and update every caller of the old interface', 40);
      expect(cut).to.equal('Refactor the payment module and update…');
      expect(cut.length).to.be.at.most(40);
    });

    it('cuts a text without spaces where it must, never inside a surrogate pair', () => {
      const cut = excerpt(`${'x'.repeat(38)}🎉🎉🎉`, 40);
      expect(cut).to.equal(`${'x'.repeat(38)}…`);
    });

    it('drops punctuation left at the cut', () => {
      expect(excerpt('First part, second part, third part and more words here', 30)).to.equal('First part, second part…');
    });
  });

  it('formats durations and sizes for people', () => {
    expect([duration(340), duration(1234), duration(125_000), duration(3_725_000)]).to.deep.equal(['340 ms', '1.2 s', '2 min 5 s', '1 h 2 min']);
    expect([bytes(512), bytes(8192), bytes(1.5 * 1024 * 1024)]).to.deep.equal(['512 B', '8.0 KiB', '1.5 MiB']);
  });

  it('gives each known status its badge and anything else a neutral one', () => {
    expect(badge('not_runnable')).to.deep.equal({ text: 'not runnable', className: 'badge badge-not_runnable' });
    expect(badge('failed').className).to.equal('badge badge-failed');
    expect(badge('"><script>').className).to.equal('badge badge-other');
  });
});
