import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runCli } from '../../../src/cli/run-cli.js';
import { failureText, terminalField, terminalSafe } from '../../../src/cli/terminal-text.js';
import { ConfigError } from '../../../src/container/config.js';
import { cliFilesDir } from '../../support/cli-checks.js';

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

describe('failureText: a failed command or start, as printed on stderr', () => {
  it('prints a configuration error line by line, each problem a terminalField: a value of the environment or of a file cannot rewrite the terminal or forge a line', () => {
    const problems = [
      'PORT: "80\u001b[2J\nFAKE" is not a whole number between 0 and 65535',
      'TRIGGERS.json: trigger #0 "a": watch_path: /x\u001b]52;c;eA==\u0007 is not an endpoint',
    ];
    expect(failureText(new ConfigError(problems).message, new ConfigError(problems))).to.equal(
      [
        'Invalid configuration:',
        '  - PORT: "80\\x1b[2J\\x0aFAKE" is not a whole number between 0 and 65535',
        '  - TRIGGERS.json: trigger #0 "a": watch_path: /x\\x1b]52;c;eA==\\x07 is not an endpoint',
      ].join('\n'),
    );
    expect(failureText(new ConfigError(['x'], 'Invalid trigger file').message, new ConfigError(['x'], 'Invalid trigger file'))).to.equal(
      'Invalid trigger file:\n  - x',
    );
  });

  it('prints another message as one line, a terminalField: a value of the environment in it cannot forge the next line', () => {
    expect(failureText('DATABASE_URL: cannot connect\nto \u001b[31mhost')).to.equal('DATABASE_URL: cannot connect\\x0ato \\x1b[31mhost');
  });

  it('is what the CLI prints for a DATA_DIR that cannot be used, holding an escape sequence and a line break (the line break forged a line), its notes before included', async () => {
    const files = await cliFilesDir('failure-text-');
    const forged = 'data\u001b[2J\nFORGED: all fine';
    try {
      // A file where the directory should be: the database cannot be opened there (a StartupError naming DATA_DIR).
      await writeFile(join(files.dir, forged), 'not a directory');
      files.setEnv({ DATABASE_URL: undefined, DATA_DIR: join(files.dir, forged) });
      const err = new PassThrough();
      const code = await runCli(['keys', 'list'], { out: new PassThrough(), err, input: new PassThrough() });
      err.end();
      expect(code).to.equal(1);
      const shown = join(files.dir, 'data\\x1b[2J\\x0aFORGED: all fine');
      expect(String(err.read())).to.equal(
        [
          `using the embedded database in ${shown} (not in use by a server)`,
          `no database in ${shown} yet: creating it (set DATABASE_URL to use PostgreSQL instead)`,
          `DATA_DIR: ${shown} is a file, not a directory: remove it or choose another DATA_DIR`,
          '',
        ].join('\n'),
      );
    } finally {
      await files.restore();
    }
  });

  it("prints an unexpected failure naming such a DATA_DIR (Node's ENOTDIR under a file) on one line too", async () => {
    const files = await cliFilesDir('failure-text-', { file: 'not a directory' });
    try {
      files.setEnv({ DATABASE_URL: undefined, DATA_DIR: join(files.dir, 'file', 'data\u001b[2J\nFORGED: all fine') });
      const err = new PassThrough();
      const code = await runCli(['keys', 'list'], { out: new PassThrough(), err, input: new PassThrough() });
      err.end();
      expect(code).to.equal(1);
      const printed = String(err.read());
      expect(printed).to.include(`${join(files.dir, 'file', 'data')}\\x1b[2J\\x0aFORGED: all fine`);
      expect(printed).not.to.match(/\u001b|\nFORGED/);
    } finally {
      await files.restore();
    }
  });

  it('is what the CLI prints for a setting holding an escape sequence and a line break (they reached the terminal as they were)', async () => {
    const files = await cliFilesDir('failure-text-', {}, { PORT: '80\u001b[2J\nFAKE' });
    try {
      const err = new PassThrough();
      const code = await runCli(['triggers', 'check'], { out: new PassThrough(), err, input: new PassThrough() });
      err.end();
      expect(code).to.equal(1);
      expect(String(err.read())).to.equal('Invalid configuration:\n  - PORT: "80\\x1b[2J\\x0aFAKE" is not a whole number between 0 and 65535\n');
    } finally {
      await files.restore();
    }
  });
});

describe('a command line that cannot be understood, as printed on stderr', () => {
  // Short enough to be repeated whole (40 characters at most, with -- before it).
  const forged = 'x\u001b[2J\u001b]52;c;cHduZWQ=\u0007\rok\nFORGED';
  const shown = 'x\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07\\x0dok\\x0aFORGED';

  const usageErrorOf = async (argv: string[]): Promise<{ code: number; printed: string }> => {
    const err = new PassThrough();
    const code = await runCli(argv, { out: new PassThrough(), err, input: new PassThrough() });
    err.end();
    return { code, printed: String(err.read()) };
  };

  it('repeats an unknown command, sub-command, option or stray argument escaped, on its one line (escape sequences and a line break in it reached the terminal)', async () => {
    for (const [argv, problem] of [
      [[forged], `unknown command ${shown}`],
      [[`-${forged}`], `unknown option -${shown} (options follow the command)`],
      [['keys', forged], `unknown keys command ${shown}`],
      [['keys', 'list', forged], `unexpected argument ${shown}`],
      // parseArgs takes what follows '=' for the option's value.
      [['keys', 'list', `--${forged}`], `unknown option --${shown.split('=')[0]}`],
    ] as const) {
      const { code, printed } = await usageErrorOf([...argv]);
      expect(code, problem).to.equal(2);
      const [first, second] = printed.split('\n');
      expect(first, problem).to.include(problem);
      expect(second, problem).to.equal('');
      expect(printed, problem).not.to.match(/[\u001b\u0007\r]|\nFORGED/);
    }
  });

  it('node dist/main.js (the service) given an argument repeats it escaped, on its one line', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', forged], { encoding: 'utf8', timeout: 60_000, env: { ...process.env } });
    expect(result.status, result.stderr).to.equal(2);
    expect(result.stderr.split('\n')[0]).to.match(new RegExp(`^Unexpected argument "${shown.replace(/[\\[\]().*+?^$|{}]/g, '\\$&')}"\\. node dist/main\\.js`));
    expect(result.stderr).not.to.match(/[\u001b\u0007\r]|\nFORGED/);
  });

  it('node dist/main.js given a long argument repeats its first 40 characters and …, each escaped whole', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', `${'\u001b'.repeat(40)}${'x'.repeat(100_000)}`], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env },
    });
    expect(result.status, result.stderr).to.equal(2);
    expect(result.stderr.split('\n')[0]).to.match(new RegExp(`^Unexpected argument "${'\\\\x1b'.repeat(40)}…"\\. node dist/main\\.js`));
  });
});
