import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import type { CliInput } from '../../../src/cli/cli-io.js';
import { readNewPassword } from '../../../src/cli/password-prompt.js';
import { CliFailure } from '../../../src/cli/usage-error.js';

/*
 * The password prompt of `admin set-password` on fake streams: a terminal (isTTY, setRawMode)
 * and a pipe. test/e2e/cli.test.ts drives the real one on a pseudo-terminal.
 */

/** A terminal's input: records raw-mode switches; `type` sends keystrokes once a prompt shows. */
class FakeTerminal extends PassThrough implements CliInput {
  readonly isTTY = true;
  readonly modes: boolean[] = [];
  setRawMode(raw: boolean): this {
    this.modes.push(raw);
    return this;
  }
  get raw(): boolean {
    return this.modes.at(-1) ?? false;
  }
}

/** What the prompts wrote, and a way to wait for the n-th prompt. */
class Screen extends PassThrough {
  text = '';
  constructor() {
    super();
    this.on('data', (chunk: Buffer) => (this.text += chunk.toString()));
  }
  async prompted(count: number): Promise<void> {
    while ((this.text.match(/: /g) ?? []).length < count) await new Promise((resolve) => setImmediate(resolve));
  }
}

const failure = async (promise: Promise<unknown>): Promise<CliFailure> => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).to.be.instanceOf(CliFailure);
  return error as CliFailure;
};

describe('the admin password prompt', () => {
  describe('on a terminal', () => {
    it('asks twice in raw mode, echoes nothing, and restores the terminal', async () => {
      const terminal = new FakeTerminal();
      const screen = new Screen();
      const reading = readNewPassword(terminal, screen);
      await screen.prompted(1);
      expect(terminal.raw, 'raw mode before the first prompt is answered').to.equal(true);
      terminal.write('correct horse battery\r');
      await screen.prompted(2);
      terminal.write('correct horse battery\r');
      expect(await reading).to.equal('correct horse battery');
      expect(screen.text).to.equal('New admin password: \nRepeat the password: \n');
      expect(terminal.modes).to.deep.equal([true, false]);
    });

    it('refuses two different answers', async () => {
      const terminal = new FakeTerminal();
      const screen = new Screen();
      const reading = readNewPassword(terminal, screen);
      await screen.prompted(1);
      terminal.write('first password\r');
      await screen.prompted(2);
      terminal.write('second password\r');
      expect((await failure(reading)).message).to.equal('The two passwords differ; the password was not changed');
      expect(terminal.raw).to.equal(false);
      expect(screen.text).to.not.include('password\r');
    });

    it('keeps what is typed ahead of the second prompt, and reads multi-byte characters split across chunks', async () => {
      const terminal = new FakeTerminal();
      const screen = new Screen();
      const reading = readNewPassword(terminal, screen);
      const bytes = Buffer.from('pässwörd-long\rpässwörd-long\r', 'utf8');
      // split inside the first "ä" (two bytes)
      terminal.write(bytes.subarray(0, 2));
      terminal.write(bytes.subarray(2));
      expect(await reading).to.equal('pässwörd-long');
    });

    it('edits with backspace and Ctrl-U, and ignores arrow keys and other control characters', async () => {
      const terminal = new FakeTerminal();
      const screen = new Screen();
      const reading = readNewPassword(terminal, screen);
      terminal.write('wrong\u0015secrex\u007ft\u001b[D\u001bOA\u0007-value\r');
      terminal.write('secret-value\n');
      expect(await reading).to.equal('secret-value');
    });

    it('cancels on Ctrl-C, and on Ctrl-D at an empty line, restoring the terminal', async () => {
      for (const keys of ['abc\u0003', '\u0004']) {
        const terminal = new FakeTerminal();
        const reading = readNewPassword(terminal, new Screen());
        terminal.write(keys);
        expect((await failure(reading)).message).to.equal('Cancelled; the password was not changed');
        expect(terminal.modes).to.deep.equal([true, false]);
      }
    });

    it('fails when the input ends before the line does', async () => {
      const terminal = new FakeTerminal();
      const reading = readNewPassword(terminal, new Screen());
      terminal.end('half');
      expect((await failure(reading)).message).to.equal('The input ended before the password was entered; it was not changed');
      expect(terminal.raw).to.equal(false);
    });
  });

  describe('from a pipe', () => {
    it('reads the first line, without its line ending, and prompts nothing', async () => {
      for (const [input, expected] of [
        ['from a pipe\n', 'from a pipe'],
        ['windows line\r\nsecond line\n', 'windows line'],
        ['no newline at the end', 'no newline at the end'],
      ] as const) {
        const pipe = new PassThrough();
        const screen = new Screen();
        const reading = readNewPassword(pipe, screen);
        pipe.end(input);
        expect(await reading).to.equal(expected);
        expect(screen.text).to.equal('');
      }
    });

    it('fails on an empty input', async () => {
      const pipe = new PassThrough();
      const reading = readNewPassword(pipe, new Screen());
      pipe.end();
      expect((await failure(reading)).message).to.match(/^No password on stdin/);
    });
  });
});
