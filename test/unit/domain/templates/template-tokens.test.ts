import { expect } from 'chai';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import { findUnknownTokens, renderText } from '../../../../src/domain/templates/template-tokens.js';

const request = snapshotRequest(
  { a: { b: 'deep' }, items: [{ id: 7 }, { id: 'x' }], flag: true, none: null, text: 'plain', n: 0 },
  { q: 'search', multi: ['1', '2'] },
  { 'X-Thing': 'value', 'x-api-key': 'agw_secret', Authorization: 'Bearer t', 'Content-Type': 'application/json' },
);

describe('template tokens', () => {
  const cases: Array<[string, string]> = [
    ['{{body.a.b}}', 'deep'],
    ['{{body.items.0.id}}', '7'],
    ['{{body.items.1.id}}', 'x'],
    ['{{body.items}}', '[{"id":7},{"id":"x"}]'],
    ['{{body.flag}}', 'true'],
    ['{{body.none}}', 'null'],
    ['{{body.n}}', '0'],
    ['{{body.text}}', 'plain'],
    ['{{body.missing}}', ''],
    ['{{body.a.b.c}}', ''],
    ['{{body.items.9.id}}', ''],
    ['{{body.__proto__}}', ''],
    ['{{body.constructor}}', ''],
    ['{{query.q}}', 'search'],
    ['{{query.multi}}', '["1","2"]'],
    ['{{query.missing}}', ''],
    ['{{query}}', '{"q":"search","multi":["1","2"]}'],
    ['{{headers.x-thing}}', 'value'],
    ['{{headers.X-Thing}}', 'value'],
    ['{{ body.a.b }}', 'deep'],
  ];
  for (const [template, expected] of cases) {
    it(`renders ${template} as ${JSON.stringify(expected)}`, () => {
      expect(renderText(template, request)).to.equal(expected);
    });
  }

  it('renders {{body}} as the whole body in JSON', () => {
    expect(JSON.parse(renderText('{{body}}', request))).to.deep.equal(request.body);
  });

  it('renders {{headers}} with lower-case names and without credentials', () => {
    expect(JSON.parse(renderText('{{headers}}', request))).to.deep.equal({ 'x-thing': 'value', 'content-type': 'application/json' });
    expect(renderText('{{headers.x-api-key}}|{{headers.authorization}}', request)).to.equal('|');
  });

  it('replaces several tokens in one text and leaves other text alone', () => {
    expect(renderText('Fix {{body.a.b}} for {{query.q}} ({{body.nothing}})', request)).to.equal('Fix deep for search ()');
  });

  it('finds tokens that are not SPEC 2.4 forms', () => {
    expect(findUnknownTokens('{{body.a}} {{env.HOME}} {{ query }} {{secret}}')).to.deep.equal(['{{env.HOME}}', '{{secret}}']);
  });
});
