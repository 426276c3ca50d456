import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdir, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { firstMisplacedToken } from '../../../src/adapters/shared/json-fault.js';
import { duplicateKeys, readConfigJson } from '../../../src/adapters/triggerfile/config-json.js';
import { loadScheduleFile } from '../../../src/adapters/triggerfile/json-schedule-file.js';
import { loadTriggerFile } from '../../../src/adapters/triggerfile/json-trigger-file.js';
import { scheduleCatalog } from '../../../src/container/schedule-catalog.js';
import { triggerCatalog } from '../../../src/container/trigger-catalog.js';
import { tempDir } from '../../support/gateway-process.js';
import { within } from '../../support/time-limit.js';

describe('configuration JSON files (triggers, schedules)', () => {
  const read = async (text: string) => {
    const file = join(await tempDir('config-json'), 'TRIGGERS.json');
    await writeFile(file, text);
    return readConfigJson(file, 'config/TRIGGERS.json');
  };

  it('skips a byte-order mark, as Windows editors write one', async () => {
    expect(await read('\uFEFF[{"name":"a"}]')).to.deep.equal({ kind: 'parsed', value: [{ name: 'a' }], duplicates: [] });
  });

  it('refuses a file that is not UTF-8, naming the line and column of the first byte that is none, never quoting the file', async () => {
    // Read as UTF-8, each such byte became U+FFFD without a word: a command saved as Latin-1 ran other than written.
    const file = join(await tempDir('config-json'), 'TRIGGERS.json');
    const latin1 = (text: string) => Buffer.from(text, 'latin1');
    const problem = (where: string) => ({
      kind: 'problem',
      problem: `config/TRIGGERS.json: not UTF-8 text (the bytes at ${where} are none; a file saved as Latin-1 or UTF-16?): save it as UTF-8`,
    });
    await writeFile(file, Buffer.concat([Buffer.from('[\n  {"name": "café ✓", "x": "'), latin1('echo caf\u00e9 secret'), Buffer.from('"}\n]')]));
    expect(await readConfigJson(file, 'config/TRIGGERS.json')).to.deep.equal(problem('line 2 column 36'));
    // A character cut short, an overlong form, a surrogate written in UTF-8, and UTF-16 with its mark.
    for (const [bytes, where] of [
      [Buffer.from([0x5b, 0x22, 0xe2, 0x9c, 0x22, 0x5d]), 'line 1 column 3'],
      [Buffer.from([0x5b, 0x22, 0xc0, 0xaf, 0x22, 0x5d]), 'line 1 column 3'],
      [Buffer.from([0x5b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x5d]), 'line 1 column 3'],
      [Buffer.from([0x5b, 0x22, 0xe0, 0x80, 0x80, 0x22, 0x5d]), 'line 1 column 3'],
      [Buffer.from([0x5b, 0x22, 0xf0, 0x80, 0x80, 0x80, 0x22, 0x5d]), 'line 1 column 3'],
      [Buffer.from([0x5b, 0x22, 0xf4, 0x90, 0x80, 0x80, 0x22, 0x5d]), 'line 1 column 3'],
      [Buffer.from([0x5b, 0x22, 0xc3, 0xa9, 0xe2, 0x9c, 0x93, 0xff, 0x22, 0x5d]), 'line 1 column 5'],
      // The column in characters (code points): an emoji (four bytes, two UTF-16 code units) counts one.
      [Buffer.concat([Buffer.from('["🎉🎉'), Buffer.from([0xff, 0x22, 0x5d])]), 'line 1 column 5'],
      // A byte-order mark opening the file is no column (an editor shows none): as without it.
      [Buffer.concat([Buffer.from('\uFEFF["🎉🎉'), Buffer.from([0xff, 0x22, 0x5d])]), 'line 1 column 5'],
      [Buffer.from('\uFEFF[]', 'utf16le'), 'line 1 column 1'],
    ] as const) {
      await writeFile(file, bytes);
      expect(await readConfigJson(file, 'config/TRIGGERS.json'), where).to.deep.equal(problem(where));
    }
    const { problems } = await loadTriggerFile(file, triggerCatalog(), '/');
    expect(problems).to.have.length(1);
  });

  it('names the place of a bad byte at the end of a 16 MiB line in a fraction of a second of CPU (an isUtf8 call per character took ~2 s, holding a reload)', async () => {
    const file = join(await tempDir('config-json'), 'TRIGGERS.json');
    const length = 16 * 1024 * 1024 - 8;
    const bytes = Buffer.alloc(length + 5, 0x61);
    bytes.write('["', 0, 'latin1');
    bytes.write('\xff"]', length + 2, 'latin1');
    await writeFile(file, bytes);
    const cpu = process.cpuUsage();
    const read = await readConfigJson(file, 'config/TRIGGERS.json');
    const { user, system } = process.cpuUsage(cpu);
    expect((read as { problem: string }).problem).to.include(`the bytes at line 1 column ${length + 3} are none`);
    // ~0.09 s of CPU on a quiet machine, 0.43 s once in a loaded clean-clone run (the worker's whole process is
    // counted); the scan it replaced took 1.3–1.9 s on a faster machine. The bound guards against that scan coming
    // back, not against a slow machine: it sits between the two.
    expect((user + system) / 1000).to.be.below(1000);
  });

  it('refuses a FIFO at once (it was waited on for good), reads a device bounded (/dev/zero was read until memory ran out) and refuses a file past 16 MiB', async () => {
    const dir = await tempDir('config-json');
    const fifo = join(dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    expect(await within(10_000, 'the FIFO refused', readConfigJson(fifo, 'config/TRIGGERS.json'))).to.deep.equal({
      kind: 'problem',
      problem: 'config/TRIGGERS.json: is not a regular file (a FIFO or a socket, which would be waited on for good): write the configuration to a file',
    });
    expect(await within(10_000, '/dev/zero refused', readConfigJson('/dev/zero', 'config/TRIGGERS.json'))).to.deep.equal({
      kind: 'problem',
      problem: 'config/TRIGGERS.json: is more than the 16777216 bytes a configuration file may have',
    });
    expect(await readConfigJson('/dev/null', 'config/TRIGGERS.json')).to.have.property('kind', 'problem');
    await mkdir(join(dir, 'dir.json'));
    expect(await readConfigJson(join(dir, 'dir.json'), 'config/TRIGGERS.json')).to.deep.equal({
      kind: 'problem',
      problem: 'config/TRIGGERS.json: is a directory, not a file',
    });
    // Sparse: no disk is used. Past what a string holds (512 MiB), reading it threw out of the loader.
    const large = join(dir, 'large.json');
    await writeFile(large, '[]');
    await truncate(large, 600 * 1024 * 1024);
    expect(await readConfigJson(large, 'config/TRIGGERS.json')).to.deep.equal({
      kind: 'problem',
      problem: `config/TRIGGERS.json: is ${600 * 1024 * 1024} bytes, more than the 16777216 a configuration file may have`,
    });
    // Exactly 16 MiB is read (as JSON it is '[]' and NUL bytes: refused for what it holds, not for its size).
    await truncate(large, 16 * 1024 * 1024);
    const atTheLimit = await readConfigJson(large, 'config/TRIGGERS.json');
    expect(atTheLimit.kind).to.equal('problem');
    expect((atTheLimit as { problem: string }).problem).to.not.include('bytes');
  });

  it('names the line and column of a trailing comma, and calls it one, without quoting the file', async () => {
    const text = `[\n  {"name": "a", "secret": "${'x'.repeat(40)}"},\n]`;
    expect(await read(text)).to.deep.equal({
      kind: 'problem',
      problem: 'config/TRIGGERS.json: not valid JSON (unexpected character at line 3 column 1 (a comma before a closing bracket))',
    });
    expect((await read('{"a": [1, 2,]}')) as { problem: string })
      .to.have.property('problem')
      .that.contains('at line 1 column 13 (a comma before');
  });

  it('never repeats a character of the file V8 quotes around an unexpected token (a header value written without quotes), and names its place instead', async () => {
    const action = (value: string) =>
      `[\n  {\n    "name": "fwd",\n    "watch_path": "/webhook",\n    "enabled": true,\n    "actions": [{ "type": "webhook", "url": "https://hooks.example.com/x", "headers": { "Authorization": ${value} } }]\n  }\n]\n`;
    // In the middle of a long file V8 quotes `..."ization": Bearer sk-"...`; at its start `"x"Bearer S"...`;
    // its own message kept only the token (`Unexpected token 'B'`): one character of the secret.
    for (const [text, where] of [
      [action('Bearer sk-live-abcdef123456'), 'line 6 column 106'],
      [action('sk-live-abcdef123456'), 'line 6 column 106'],
      [action('tru'), 'line 6 column 109'],
      [`x"Bearer sk-live-abcdef123456"${' '.repeat(500)}`, 'line 1 column 1'],
      [`[{"a": SECRET-abcdef}]`, 'line 1 column 8'],
      // The column in characters (code points), as an editor shows it: an emoji before the fault counts one.
      [`[{"name": "🎉 deploy", "x": Bearer sk-live-1}]`, 'line 1 column 28'],
      [`[\n  {"🎉🎉": "a", "b": SECRET-abcdef}]`, 'line 2 column 20'],
    ]) {
      const problem = ((await read(text)) as { problem: string }).problem;
      expect(problem, text.slice(0, 40)).to.equal(`config/TRIGGERS.json: not valid JSON (unexpected character at ${where})`);
      expect(problem).to.not.match(/sk-|Bear|SECRET|'[BsSx ]'/);
    }
  });

  it('says the same of a trigger file and a schedule file: the fault by its line and column, never a character of the file', async () => {
    const dir = await tempDir('config-json');
    const header = '{"type": "webhook", "url": "https://hooks.example.com/x", "headers": {"Authorization": Bearer sk-live-abcdef123456}}';
    await writeFile(join(dir, 'TRIGGERS.json'), `[{"name": "fwd", "watch_path": "/webhook", "enabled": true,\n  "actions": [${header}]}]`);
    await writeFile(join(dir, 'CRONS.json'), `[{"name": "nightly", "schedule": "0 3 * * *", "enabled": true,\n  "actions": [${header}]}]`);
    const triggers = await loadTriggerFile(join(dir, 'TRIGGERS.json'), triggerCatalog(), dir);
    const schedules = await loadScheduleFile(join(dir, 'CRONS.json'), scheduleCatalog(), dir);
    expect(triggers.problems).to.deep.equal(['TRIGGERS.json: not valid JSON (unexpected character at line 2 column 102)']);
    expect(schedules.problems).to.deep.equal(['CRONS.json: not valid JSON (unexpected character at line 2 column 102)']);
  });

  it("names the place V8 gives in the words the HTTP body's error uses, an end cut short by its line and column, and says when the file is missing", async () => {
    expect(await read('{"a" 1}')).to.deep.equal({
      kind: 'problem',
      problem: "config/TRIGGERS.json: not valid JSON (expected ':' after property name at line 1 column 6)",
    });
    expect(await read('[\n  {"name": ')).to.deep.equal({
      kind: 'problem',
      problem: 'config/TRIGGERS.json: not valid JSON (unexpected end of the file at line 2 column 12)',
    });
    expect(await read('[1] x')).to.deep.equal({
      kind: 'problem',
      problem: 'config/TRIGGERS.json: not valid JSON (unexpected non-whitespace character after JSON at line 1 column 5)',
    });
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

  describe('a key written twice in one object (JSON.parse would keep the last one silently)', () => {
    const file = async (name: string, text: string) => {
      const dir = await tempDir('config-json-dup');
      await writeFile(join(dir, name), text);
      return { dir, path: join(dir, name) };
    };

    it('finds each key given again in the same object, at any depth, escapes decoded', () => {
      expect(duplicateKeys('{"a": 1, "b": {"a": 2}, "a": 3}')).to.deep.equal([['a']]);
      expect(duplicateKeys('[{"x": [{"k": "\\"k\\":", "k": 1}]}, {"e": 1, "\\u0065": 2, "e": 3}]')).to.deep.equal([
        [0, 'x', 0, 'k'],
        [1, 'e'],
        [1, 'e'],
      ]);
      expect(duplicateKeys('[{"a": 1}, {"a": 2}, {"a": {"a": {"a": 1}}}]')).to.deep.equal([]);
    });

    it('refuses a trigger entry with a field given twice, at any level, naming the file, the trigger and the field', async () => {
      const { dir, path } = await file(
        'TRIGGERS.json',
        `[{"name": "ok", "watch_path": "/webhook", "enabled": true, "actions": [{"type": "command", "command": "make"}]},
          {"name": "deploy", "watch_path": "/webhook", "enabled": false, "when": {"body.ref": {"equals": "a", "equals": "b"}},
           "actions": [{"type": "command", "approval": true, "command": "./deploy.sh", "approval": false},
                       {"type": "webhook", "url": "https://example.test/h", "headers": {"X-A": "1", "X-A": "2"}}],
           "enabled": true}]`,
      );
      const loaded = await loadTriggerFile(path, triggerCatalog(), dir);
      expect(loaded.problems).to.deep.equal([
        'TRIGGERS.json: trigger #1 "deploy": when.body.ref.equals: given twice; JSON keeps only the last one, so write each field once',
        'TRIGGERS.json: trigger #1 "deploy": actions[0].approval: given twice; JSON keeps only the last one, so write each field once',
        'TRIGGERS.json: trigger #1 "deploy": actions[1].headers.X-A: given twice; JSON keeps only the last one, so write each field once',
        'TRIGGERS.json: trigger #1 "deploy": enabled: given twice; JSON keeps only the last one, so write each field once',
      ]);
      expect(loaded.triggers).to.deep.equal([]);
    });

    it('names a trigger entry with a field given twice by its name cut to 200 characters', async () => {
      const { dir, path } = await file('TRIGGERS.json', `[{"name": "${'N'.repeat(100_000)}", "enabled": true, "enabled": true}]`);
      const { problems } = await loadTriggerFile(path, triggerCatalog(), dir);
      expect(problems[0]).to.equal(
        `TRIGGERS.json: trigger #0 "${'N'.repeat(200)}…": enabled: given twice; JSON keeps only the last one, so write each field once`,
      );
    });

    it('refuses a schedule entry with a field given twice, as the schedule file names its entries', async () => {
      const { dir, path } = await file(
        'CRONS.json',
        '[{"name": "nightly", "schedule": "0 3 * * *", "enabled": false, "actions": [{"type": "command", "command": "make"}], "enabled": true}]',
      );
      const loaded = await loadScheduleFile(path, scheduleCatalog(), dir);
      expect(loaded.problems).to.deep.equal([
        'CRONS.json: schedule #0 "nightly": enabled: given twice; JSON keeps only the last one, so write each field once',
      ]);
      expect(loaded.schedules).to.deep.equal([]);
    });
  });
});
