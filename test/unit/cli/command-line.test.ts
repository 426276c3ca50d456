import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import type { CliIo } from '../../../src/cli/cli-io.js';
import { resolveCommandLine, type Resolved } from '../../../src/cli/command-line.js';
import { commands } from '../../../src/cli/commands.js';
import { runCli } from '../../../src/cli/run-cli.js';
import { UsageError } from '../../../src/cli/usage-error.js';
import { retentionSchema } from '../../../src/container/config/retention.js';

/*
 * The CLI's command line against its real command table: what `--help` shows, and that every
 * line the CLI cannot understand is refused (exit code 2) with the usage of the command meant.
 * Nothing runs here; test/e2e/cli.test.ts runs the built CLI.
 */

const io: CliIo = { out: new PassThrough(), err: new PassThrough(), input: new PassThrough() };
const TABLE = commands(io);
const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const resolve = (...argv: string[]): Resolved => resolveCommandLine(argv, TABLE);

const refusal = (...argv: string[]): UsageError => {
  try {
    resolve(...argv);
  } catch (error) {
    expect(error, argv.join(' ')).to.be.instanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error(`"${argv.join(' ')}" was accepted`);
};

const helpText = (...argv: string[]): string => {
  const resolved = resolve(...argv);
  expect(resolved.kind, argv.join(' ')).to.equal('help');
  return (resolved as Extract<Resolved, { kind: 'help' }>).text;
};

const ran = (...argv: string[]) => {
  const resolved = resolve(...argv);
  expect(resolved.kind, argv.join(' ')).to.equal('run');
  return resolved as Extract<Resolved, { kind: 'run' }>;
};

describe('the CLI command line', () => {
  it('has --help and -h on every command, each showing its own usage line and options', () => {
    for (const command of TABLE) {
      const words = command.words.join(' ');
      for (const flag of ['--help', '-h']) {
        const text = helpText(...command.words, flag);
        expect(text, `${words} ${flag}`).to.match(new RegExp(`^Usage: agent-gateway ${words}\\b`));
        expect(text).to.include('-h, --help');
        for (const option of Object.keys(command.options)) expect(text, `${words} lists --${option}`).to.include(`--${option}`);
      }
      // `help keys create` is the same as `keys create --help`
      expect(helpText('help', ...command.words)).to.equal(helpText(...command.words, '--help'));
    }
  });

  it('has --help on each group, listing its commands', () => {
    for (const group of ['keys', 'admin', 'triggers']) {
      const text = helpText(group, '--help');
      expect(text).to.match(new RegExp(`^Usage: agent-gateway ${group} <command>`));
      for (const command of TABLE.filter((c) => c.words[0] === group)) expect(text).to.include(command.words.join(' '));
    }
    expect(helpText('keys', '-h')).to.equal(helpText('keys', '--help'));
    expect(helpText('help', 'keys')).to.equal(helpText('keys', '--help'));
  });

  it('shows every command in the overall help', () => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const text = helpText(...argv);
      expect(text).to.match(/^Usage: agent-gateway <command>/);
      for (const command of TABLE) expect(text).to.include(command.words.join(' '));
    }
  });

  it('keeps the help readable on a terminal: a command or option too long for the column (deliveries list) has its text on the next line, not every line padded to it', () => {
    // Padded to `deliveries list [--path P] …` (97 characters), every line ran to 190.
    for (const argv of [['--help'], ['deliveries', '--help'], ['keys', 'create', '--help']]) {
      const lines = helpText(...argv).split('\n');
      for (const line of lines) expect(line.length, `${argv.join(' ')}: ${line}`).to.be.at.most(120);
    }
    const lines = helpText('--help').split('\n');
    const at = lines.findIndex((line) => line.startsWith('  deliveries list '));
    expect(lines[at]).to.equal('  deliveries list [--path P] [--trigger T] [--before TIME [--before-id ID]] [--limit N] [--json]');
    expect(lines[at + 1]).to.match(/^ {37}list stored requests that fired triggers, newest first$/);
    expect(lines.find((line) => line.startsWith('  serve '))).to.match(/^ {2}serve {30}start the service \(what npm start does\)$/);
  });

  it('says how long a stored request is kept as the retention sweep does (RETENTION_ACTION_RUNS_DAYS, never less than 15 days), in deliveries list --help and the docs', async () => {
    const least = retentionSchema.parse({ RETENTION_ACTION_RUNS_DAYS: '2' }).retention.inboundRequestsDays;
    expect(least).to.equal(15);
    expect(retentionSchema.parse({ RETENTION_ACTION_RUNS_DAYS: '0' }).retention.inboundRequestsDays).to.equal(0);
    const flat = (text: string) => text.replace(/\s+/g, ' ');
    expect(flat(helpText('deliveries', 'list', '--help'))).to.include(
      `kept for RETENTION_ACTION_RUNS_DAYS and never less than ${least} days (for good when it is 0)`,
    );
    for (const doc of ['docs/cli.md', 'docs/triggers.md']) {
      const text = flat(await readFile(new URL(`../../../${doc}`, import.meta.url), 'utf8'));
      expect(text, doc).to.match(new RegExp(`kept for \`RETENTION_ACTION_RUNS_DAYS\`[^.]* never less than ${least} days \\(for good when it is \`0\`\\)`));
    }
  });

  it('refuses an unknown option with the usage of that command', () => {
    const refused = refusal('keys', 'list', '--bogus');
    expect(refused.message).to.equal('unknown option --bogus');
    expect(refused.usage).to.match(/^Usage: agent-gateway keys list \[--json\]/);
    expect(refusal('migrate', '--force').usage).to.match(/^Usage: agent-gateway migrate\b/);
    expect(refusal('admin', 'set-password', '--password', 'x').message).to.equal('unknown option --password');
    expect(refusal('keys', 'create', '--name', 'a', '-x').message).to.equal('unknown option -x');
    expect(refusal('serve', '--port', '1').usage).to.match(/^Usage: agent-gateway serve\b/);
  });

  it('prints the version for --version and -V, from package.json', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(helpText('--version')).to.equal(`agent-gateway ${version}\n`);
    expect(helpText('-V')).to.equal(`agent-gateway ${version}\n`);
    expect(refusal('--version', 'keys').message).to.equal('unexpected argument keys');
    expect(helpText('help')).to.match(/--version +print the version/);
  });

  it('refuses options before the command, and a value given to a flag', () => {
    expect(refusal('--json', 'keys', 'list').message).to.equal('unknown option --json (options follow the command)');
    expect(refusal('keys', '--json', 'list').message).to.equal('unknown option --json (options follow the command)');
    expect(refusal('keys', 'list', '--json=yes').message).to.equal('--json takes no value');
  });

  it('refuses unknown commands and sub-commands with the usage of the level meant', () => {
    const unknown = refusal('frobnicate');
    expect(unknown.message).to.equal('unknown command frobnicate');
    expect(unknown.usage).to.match(/^Usage: agent-gateway <command>/);
    const sub = refusal('keys', 'delete', 'x');
    expect(sub.message).to.equal('unknown keys command delete');
    expect(sub.usage).to.match(/^Usage: agent-gateway keys <command>/);
    expect(refusal('keys').message).to.equal('keys needs a command: create, list or revoke');
    expect(refusal('admin').message).to.equal('admin needs a command: set-password');
    expect(refusal().message).to.equal('no command given');
  });

  it('names the command, sub-command or option a misspelled one most likely meant, and none for one far from all', () => {
    expect(refusal('key', 'list').message).to.equal('unknown command key; did you mean keys?');
    expect(refusal('delivries', 'list').message).to.equal('unknown command delivries; did you mean deliveries?');
    expect(refusal('keys', 'lst').message).to.equal('unknown keys command lst; did you mean list?');
    expect(refusal('triggers', 'chek').message).to.equal('unknown triggers command chek; did you mean check?');
    expect(refusal('keys', 'create', '--nam', 'x').message).to.equal('unknown option --nam; did you mean --name?');
    expect(refusal('deliveries', 'list', '--limt', '3').message).to.equal('unknown option --limt; did you mean --limit?');
    expect(refusal('keys', 'list', '--JSON').message).to.equal('unknown option --JSON; did you mean --json?');
    expect(refusal('keys', 'delete', 'x').message).to.equal('unknown keys command delete');
    expect(refusal('keys', 'list', '--bogus').message).to.equal('unknown option --bogus');
  });

  it('does not suggest an option the command line already gives', () => {
    expect(refusal('keys', 'list', '--json', '--jsn').message).to.equal('unknown option --jsn');
    expect(refusal('keys', 'create', '--name=x', '--nam', 'y').message).to.equal('unknown option --nam');
    expect(refusal('keys', 'create', '--name', 'x', '--jsn').message).to.equal('unknown option --jsn; did you mean --json?');
  });

  it('refuses a missing option value, a missing required option, missing and stray arguments', () => {
    expect(refusal('keys', 'create', '--name').message).to.equal('--name needs a value');
    expect(refusal('keys', 'create', '--json').message).to.equal('keys create needs --name NAME');
    expect(refusal('keys', 'revoke').message).to.equal('keys revoke needs ID');
    expect(refusal('keys', 'revoke', 'a', 'b').message).to.equal('unexpected argument b');
    expect(refusal('keys', 'list', 'extra').message).to.equal('unexpected argument extra');
    expect(refusal('migrate', 'now').message).to.equal('unexpected argument now');
  });

  it('cuts an argument a usage error repeats to its first 40 characters and … (never half a surrogate pair), however long; escaped after the cut, so never half an escape', async () => {
    const long = 'x'.repeat(100_000);
    const cut = `${'x'.repeat(40)}…`;
    expect(refusal(long).message).to.equal(`unknown command ${cut}`);
    expect(refusal(`-${long}`).message).to.equal(`unknown option -${'x'.repeat(39)}… (options follow the command)`);
    expect(refusal('keys', long).message).to.equal(`unknown keys command ${cut}`);
    expect(refusal('keys', `-${long}`).message).to.equal(`unknown option -${'x'.repeat(39)}… (options follow the command)`);
    expect(refusal('keys', 'list', `--${long}`).message).to.equal(`unknown option --${'x'.repeat(38)}…`);
    expect(refusal('keys', 'list', long).message).to.equal(`unexpected argument ${cut}`);
    expect(refusal('keys', 'revoke', ID, long).message).to.equal(`unexpected argument ${cut}`);
    expect(refusal('--version', long).message).to.equal(`unexpected argument ${cut}`);
    expect(refusal('keys', '--help', long).message).to.equal(`unexpected argument ${cut}`);
    // A surrogate pair across the 40th character is left out whole.
    expect(refusal(`${'x'.repeat(39)}🎉tail`).message).to.equal(`unknown command ${'x'.repeat(39)}…`);
    // As printed: the 40 characters kept, each escaped whole.
    const err = new PassThrough();
    const code = await runCli(['\u001b'.repeat(100), 'list'], { out: new PassThrough(), err, input: new PassThrough() });
    err.end();
    expect(code).to.equal(2);
    expect(String(err.read()).split('\n')[0]).to.equal(`unknown command ${'\\x1b'.repeat(40)}…`);
  });

  it('hands the parsed options and arguments to the command', () => {
    const created = ran('keys', 'create', '--name', 'ci bot', '--json');
    expect(created.command.words).to.deep.equal(['keys', 'create']);
    expect(created.parsed.values).to.deep.equal({ name: 'ci bot', json: true });
    expect(ran('keys', 'create', '--name=x').parsed.values).to.deep.equal({ name: 'x' });
    expect(ran('keys', 'revoke', ID).parsed.positionals).to.deep.equal([ID]);
    // an id pasted with spaces around it (`keys revoke "<uuid> "`) is the id
    expect(ran('keys', 'revoke', ` ${ID} `).parsed.positionals).to.deep.equal([ID]);
    expect(ran('deliveries', 'show', `${ID}\n`).parsed.positionals).to.deep.equal([ID]);
    // an argument after `--`, and a value that looks like an option after `=`
    expect(ran('deliveries', 'show', '--', ID).parsed.positionals).to.deep.equal([ID]);
    expect(ran('keys', 'create', '--name=-odd').parsed.values).to.deep.equal({ name: '-odd' });
    expect(ran('triggers', 'check', '--file', 'x.json').parsed.values).to.deep.equal({ file: 'x.json' });
    // a negative number is an option's value, for the command to refuse for what it is
    expect(ran('deliveries', 'list', '--limit', '-1').parsed.values).to.deep.equal({ limit: '-1' });
    expect(ran('deliveries', 'list', '--limit=-1', '--json').parsed.values).to.deep.equal({ limit: '-1', json: true });
  });

  it('refuses an ID that cannot be an id, whatever the command would have worked on', () => {
    for (const id of ['', ' ', 'nope', '..', '.', '../status', `${ID}/replay`, `${ID} x`, ID.slice(1)]) {
      expect(refusal('keys', 'revoke', id).message, id).to.equal('Key id must be a UUID (see keys list)');
      expect(refusal('deliveries', 'show', id).message, id).to.equal('Request id must be a UUID (see deliveries list)');
      expect(refusal('deliveries', 'replay', id).message, id).to.equal('Request id must be a UUID (see deliveries list)');
    }
    expect(refusal('deliveries', 'show', '', '--json').usage).to.match(/^Usage: agent-gateway deliveries show ID \[--json\]/);
    expect(ran('deliveries', 'show', ID.toUpperCase()).parsed.positionals).to.deep.equal([ID.toUpperCase()]);
  });
});
