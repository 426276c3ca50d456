import { expect } from 'chai';
import { acceptJsonValue } from '../../../../src/adapters/http/middleware/accept-json-value.js';
import { parseJson } from '../../../../src/adapters/http/middleware/parse-json.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { canonicalJson } from '../../../../src/domain/jobs/idempotency.js';
import { mayHoldInexactNumbers } from '../../../../src/domain/templates/exact-json.js';
import { parseStoredSnapshot } from '../../../../src/domain/templates/request-snapshot.js';
import { renderCommand } from '../../../../src/domain/templates/render-command.js';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import { renderText } from '../../../../src/domain/templates/template-tokens.js';
import { filterTriggers } from '../../../../src/domain/triggers/match-triggers.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';

const SNOWFLAKE = '12345678901234567891';
const BODY = `{"ref":${SNOWFLAKE},"x":1e400,"neg":-99999999999999999999,"ok":42,"f":1.5,"e":2.5e-7,"safe":9007199254740991,"list":[${SNOWFLAKE},{"deep":${SNOWFLAKE}}]}`;

/** A JSON body as the HTTP edge takes it: parsed (json-body.ts), then its edge rules applied. */
const received = (text: string): unknown => acceptJsonValue(parseJson(Buffer.from(text, 'utf8')));

describe('JSON numbers a double cannot hold (exact-json.ts)', () => {
  describe('parsing a body', () => {
    it('keeps an integer beyond 2^53 and a number beyond the double range as their exact text, at any depth; ordinary numbers stay numbers', () => {
      const body = received(BODY) as Record<string, unknown>;
      expect(JSON.stringify(body)).to.equal(BODY);
      expect([body.ok, body.f, body.e, body.safe]).to.deep.equal([42, 1.5, 2.5e-7, Number.MAX_SAFE_INTEGER]);
      expect(received('[1,-2,0.1,1e-400]')).to.deep.equal([1, -2, 0.1, 0]);
    });

    it('keeps a top-level number too, leaves digits inside strings alone, and still refuses a __proto__ key', () => {
      expect(JSON.stringify(received(SNOWFLAKE))).to.equal(SNOWFLAKE);
      expect(received(`{"id":"${SNOWFLAKE}"}`)).to.deep.equal({ id: SNOWFLAKE });
      expect(() => parseJson(Buffer.from(`{"ref":${SNOWFLAKE},"__proto__":{"x":1}}`))).to.throw('Invalid JSON body');
    });
  });

  describe('rendering', () => {
    const request = snapshotRequest(received(BODY), {}, {});

    it('renders the exact digits in text templates, alone and inside JSON, and 1e400 as sent', () => {
      expect(renderText('{{body.ref}} {{body.list.1.deep}} {{body.x}} {{body.neg}}', request)).to.equal(
        `${SNOWFLAKE} ${SNOWFLAKE} 1e400 -99999999999999999999`,
      );
      expect(renderText('{{body.list}}', request)).to.equal(`[${SNOWFLAKE},{"deep":${SNOWFLAKE}}]`);
      expect(renderText('[{{body.ref.rawJSON}}]', request)).to.equal('[]');
    });

    it("gives a command's environment variables the exact digits", () => {
      expect(renderCommand('echo {{body.ref}} {{body.x}}', request).env).to.deep.equal({ AGW_ARG_1: SNOWFLAKE, AGW_ARG_2: '1e400' });
    });

    it("writes the exact digits into a webhook forward's JSON and the idempotency fingerprint", () => {
      expect(JSON.stringify({ data: request.body })).to.equal(`{"data":${BODY}}`);
      expect(canonicalJson(request.body)).to.include(`"ref":${SNOWFLAKE}`).and.include('"x":1e400').and.include(`"list":[${SNOWFLAKE},{"deep":${SNOWFLAKE}}]`);
    });
  });

  describe('the stored request', () => {
    it('reads back, for a trigger run, with the digits that were sent', () => {
      const stored = JSON.stringify(snapshotRequest(received(BODY), {}, {}));
      expect(stored).to.include(`"ref":${SNOWFLAKE}`).and.include('"x":1e400');
      const again = parseStoredSnapshot(stored);
      expect(renderCommand('echo {{body.ref}}', again).env).to.deep.equal({ AGW_ARG_1: SNOWFLAKE });
      expect(JSON.stringify(again)).to.equal(stored);
    });
  });

  describe('when filters', () => {
    const fired = (when: unknown, body: string): boolean => {
      const { triggers, problems } = validateTriggers(
        [{ name: 't', watch_path: '/webhook', enabled: true, when, actions: [{ type: 'command', command: 'make' }] }],
        'T.json',
        triggerCatalog(),
      );
      expect(problems).to.deep.equal([]);
      return filterTriggers(triggers, snapshotRequest(received(body), {}, {})).length === 1;
    };

    it('matches a kept number against a string holding exactly its digits, not another id; a number of the file by its double value, as before', () => {
      expect(fired({ 'body.ref': { equals: SNOWFLAKE } }, `{"ref":${SNOWFLAKE}}`)).to.equal(true);
      expect(fired({ 'body.ref': { in: ['1', SNOWFLAKE] } }, `{"ref":${SNOWFLAKE}}`)).to.equal(true);
      expect(fired({ 'body.ref': { equals: SNOWFLAKE } }, '{"ref":12345678901234567892}')).to.equal(false);
      expect(fired({ 'body.ref': { equals: Number(SNOWFLAKE) } }, `{"ref":${SNOWFLAKE}}`)).to.equal(true);
      expect(fired({ 'body.ref': { equals: 1 } }, `{"ref":${SNOWFLAKE}}`)).to.equal(false);
    });
  });

  it('takes the slower, exact path only for text that may need it', () => {
    for (const text of ['{"a":12345678901234567891}', '{"a":1e400}', '{"a":-1E+999}', '[0,9007199254740993]'])
      expect(mayHoldInexactNumbers(text), text).to.equal(true);
    for (const text of ['{"a":"code100"}', '{"a":"Table123"}', '{"a":123456789012345}', '{"a":1.5e10}', '{"a":1e-5}'])
      expect(mayHoldInexactNumbers(text), text).to.equal(false);
  });
});
