import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { firstMisplacedToken, readConfigJson } from '../../../src/adapters/triggerfile/config-json.js';
import { tempDir } from '../../support/gateway-process.js';

describe('configuration JSON files (triggers, schedules)', () => {
  const read = async (text: string) => {
    const file = join(await tempDir('config-json'), 'TRIGGERS.json');
    await writeFile(file, text);
    return readConfigJson(file, 'config/TRIGGERS.json');
  };

  it('skips a byte-order mark, as Windows editors write one', async () => {
    expect(await read('\uFEFF[{"name":"a"}]')).to.deep.equal({ kind: 'parsed', value: [{ name: 'a' }] });
  });

  it('names the line and column of a trailing comma, and calls it one, without quoting the file', async () => {
    const text = `[\n  {"name": "a", "secret": "${'x'.repeat(40)}"},\n]`;
    expect(await read(text)).to.deep.equal({
      kind: 'problem',
      problem: `config/TRIGGERS.json: not valid JSON (Unexpected token ']' at line 3 column 1 (a comma before a closing bracket))`,
    });
    expect((await read('{"a": [1, 2,]}')) as { problem: string })
      .to.have.property('problem')
      .that.contains('at line 1 column 13 (a comma before');
  });

  it("keeps V8's own message where it names the position, and says when the file is missing", async () => {
    expect(((await read('{"a" 1}')) as { problem: string }).problem).to.match(
      /^config\/TRIGGERS\.json: not valid JSON \(Expected ':' after property name .*line 1 column 6/,
    );
    expect(await readConfigJson('/no/such/dir/TRIGGERS.json', 'x')).to.deep.equal({ kind: 'missing' });
  });

  it('finds the first token out of place, or none in valid JSON', () => {
    expect(firstMisplacedToken('[1,]')).to.equal(3);
    expect(firstMisplacedToken('{"a":1,}')).to.equal(7);
    expect(firstMisplacedToken('[1 2]')).to.equal(3);
    expect(firstMisplacedToken('{"a" "b"}')).to.equal(5);
    expect(firstMisplacedToken('[] []')).to.equal(3);
    expect(firstMisplacedToken('[{"a":"x,]\\"y"}, [true, null, -1.5e3]]')).to.equal(undefined);
  });
});
