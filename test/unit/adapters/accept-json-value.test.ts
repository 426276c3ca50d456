import { expect } from 'chai';
import { acceptJsonValue, MAX_JSON_DEPTH } from '../../../src/adapters/http/middleware/accept-json-value.js';
import { parseJson } from '../../../src/adapters/http/middleware/parse-json.js';
import { DomainError } from '../../../src/domain/errors/domain-error.js';

/** `levels` nested arrays around `inner`. */
const nested = (levels: number, inner: unknown = 1): unknown => {
  let value = inner;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
};

const refusal = (value: unknown): DomainError => {
  try {
    acceptJsonValue(value);
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected a refusal');
};

describe('acceptJsonValue (the edge rules for JSON bodies)', () => {
  it(`takes ${MAX_JSON_DEPTH} levels of nesting and refuses one more with invalid_input naming the limit`, () => {
    expect(MAX_JSON_DEPTH).to.equal(64);
    expect(() => acceptJsonValue(nested(MAX_JSON_DEPTH))).not.to.throw();
    expect(() => acceptJsonValue({ a: nested(MAX_JSON_DEPTH - 1) })).not.to.throw();
    const error = refusal({ a: nested(MAX_JSON_DEPTH) });
    expect(error).to.be.instanceOf(DomainError);
    expect(error).to.include({ code: 'invalid_input', message: 'JSON body is nested deeper than 64 levels' });
  });

  it('refuses 100 000 levels without exhausting the stack', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    expect(refusal(deep).code).to.equal('invalid_input');
  });

  it('refuses a body thousands of levels deep for its depth also when it holds a number kept exactly (no stack overflow read as invalid JSON)', () => {
    for (const inner of ['1', '12345678901234567', '1e400', '"[[[{"']) {
      const text = '['.repeat(5000) + inner + ']'.repeat(5000);
      let error: unknown;
      try {
        acceptJsonValue(parseJson(Buffer.from(text)));
      } catch (caught) {
        error = caught;
      }
      expect(error, inner).to.be.instanceOf(DomainError);
      expect(error, inner).to.include({ code: 'invalid_input', message: 'JSON body is nested deeper than 64 levels' });
    }
    // At the limit, the exact number is kept; brackets and escaped quotes inside strings are no nesting.
    const atLimit = parseJson(Buffer.from(`${'['.repeat(63)}{"k\\"[":"[[[\\"{{", "n": 12345678901234567}${']'.repeat(63)}`));
    expect(JSON.stringify(acceptJsonValue(atLimit))).to.include('12345678901234567');
  });

  it('refuses a long body nested too deep before parsing it, whether or not its brackets close (JSON.parse takes seconds on megabytes of them)', () => {
    for (const text of [
      '['.repeat(200_000),
      `${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}`,
      `{"s":"${'x'.repeat(5_000)}","a":${'['.repeat(65)}${']'.repeat(65)}}`,
    ]) {
      expect(() => parseJson(Buffer.from(text)), text.slice(0, 20))
        .to.throw(DomainError)
        .that.includes({ code: 'invalid_input', message: 'JSON body is nested deeper than 64 levels' });
    }
    // A long body at the limit is parsed; brackets inside its strings are no nesting.
    const long = `{"s":"${'[{'.repeat(5_000)}","a":${'['.repeat(63)}1${']'.repeat(63)}}`;
    expect(acceptJsonValue(parseJson(Buffer.from(long)))).to.have.property('s', '[{'.repeat(5_000));
  });

  it('says a __proto__ key is what is refused (the JSON is valid)', () => {
    for (const text of ['{"__proto__":{"admin":true}}', '{"a":[{"\\u005f_proto__":1}]}']) {
      expect(() => parseJson(Buffer.from(text)), text)
        .to.throw(DomainError)
        .that.includes({ code: 'invalid_input', message: 'Invalid JSON body: a "__proto__" key is not allowed' });
    }
    expect(() => parseJson(Buffer.from('{"a":'))).to.throw(DomainError, /^Invalid JSON body: unexpected end of the body at line 1 column 6$/);
  });

  it('names the place of a fault at the end of a body of megabytes in a fraction of a second of CPU, its text not quoted', () => {
    // 3 MiB of lines (a scan per line, or a split, would show) ending in a value without quotes: V8 quotes the text around it.
    const lines = 1024 * 1024;
    const text = `[${'1,\n'.repeat(lines)}Bearer sk-live-1]`;
    const cpu = process.cpuUsage();
    let error: unknown;
    try {
      parseJson(Buffer.from(text));
    } catch (caught) {
      error = caught;
    }
    const { user, system } = process.cpuUsage(cpu);
    expect(error)
      .to.be.instanceOf(DomainError)
      .that.includes({ code: 'invalid_input', message: `Invalid JSON body: unexpected character at line ${lines + 1} column 1` });
    // 0.2–0.35 s of CPU here, V8's own parse and the depth scan included; a scan per line would take hours.
    expect((user + system) / 1000).to.be.below(2000);
  });

  it('takes a GitHub-style payload, far below the limit, unchanged', () => {
    const push = { ref: 'refs/heads/main', commits: [{ id: 'a', author: { name: 'é', email: 'x@y' }, added: ['f'] }], repository: { owner: { login: 'o' } } };
    expect(acceptJsonValue(structuredClone(push))).to.deep.equal(push);
  });

  it('replaces lone surrogates in strings and keys with U+FFFD, keeps pairs, NUL characters and key order', () => {
    const body = JSON.parse('{"a":"x\\ud83dy","\\udc00k":["\\ud83d\\ude00","\\u0000"],"z":{"deep":["\\udbff"]}}') as unknown;
    const accepted = acceptJsonValue(body);
    expect(accepted).to.deep.equal({ a: 'x\ufffdy', '\ufffdk': ['\ud83d\ude00', '\u0000'], z: { deep: ['\ufffd'] } });
    expect(Object.keys(accepted as object)).to.deep.equal(['a', '\ufffdk', 'z']);
    expect(acceptJsonValue('\ud800')).to.equal('\ufffd');
    expect(acceptJsonValue(null)).to.equal(null);
    expect(acceptJsonValue(3)).to.equal(3);
  });
});
