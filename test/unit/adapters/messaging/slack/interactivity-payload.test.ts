import { expect } from 'chai';
import { MAX_JSON_DEPTH } from '../../../../../src/adapters/http/middleware/accept-json-value.js';
import { parseInteractivityPayload } from '../../../../../src/adapters/messaging/slack/interactivity-payload.js';
import { DomainError } from '../../../../../src/domain/errors/domain-error.js';

const refusal = (text: string): DomainError => {
  try {
    parseInteractivityPayload(text);
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a refusal');
};

/** `{"a":` … `1` … `}`: `depth` objects inside one another. */
const nested = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/*
 * Slack's interactivity payload (the JSON of a button press's form field `payload`) gets the
 * depth rule of every JSON body (MAX_JSON_DEPTH, one limit), told from the text before it is
 * parsed, as parseJson does: JSON.parse of deep text takes time growing faster than its depth.
 */
describe('parseInteractivityPayload', () => {
  it(`takes ${MAX_JSON_DEPTH} levels of nesting, brackets inside strings not counted, and refuses one more as a 400 naming the limit`, () => {
    expect(parseInteractivityPayload(nested(MAX_JSON_DEPTH))).to.be.an('object');
    const text = `{"type":"block_actions","state":"${'[{'.repeat(500)}\\"${'}]'.repeat(500)}"}`;
    expect(parseInteractivityPayload(text)).to.deep.equal({ type: 'block_actions', state: `${'[{'.repeat(500)}"${'}]'.repeat(500)}` });
    const error = refusal(nested(MAX_JSON_DEPTH + 1));
    expect(error.code).to.equal('invalid_input');
    expect(error.message).to.equal(`The interactivity payload is nested deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it('refuses brackets that never close for their depth, told before any parse (it was parsed first, and only then refused as not JSON)', () => {
    const error = refusal(`{"type":"block_actions","state":${'['.repeat(200_000)}`);
    expect(error.message).to.equal(`The interactivity payload is nested deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it('refuses text that is not JSON, and a __proto__ key, as a 400', () => {
    for (const text of ['{"type":', '{"type":"block_actions","__proto__":{"x":1}}']) {
      const error = refusal(text);
      expect(error.code, text).to.equal('invalid_input');
      expect(error.message, text).to.equal('The interactivity payload is not JSON, or sets __proto__');
    }
  });
});
