import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../src/container/config.js';
import { configFromEnvironment } from '../../../src/container/environment.js';

/**
 * Registers hooks that save, clear and put back `names` in process.env around each test of the
 * suite: the machine's environment may hold any of them (a developer's LOG_LEVEL=debug), and a
 * test's own value must not leak into the next. Call it after the suite's own afterEach, so that
 * the values are put back last.
 */
const isolateEnvironment = (names: readonly string[]): void => {
  const saved = new Map<string, string | undefined>();
  beforeEach(() => {
    for (const name of names) {
      saved.set(name, process.env[name]);
      delete process.env[name];
    }
  });
  afterEach(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    saved.clear();
  });
};

describe('configFromEnvironment', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'env-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names .env and says it is a directory when it is one, instead of Node’s “should be a valid string”', () => {
    mkdirSync(join(dir, '.env'));
    let error: unknown;
    try {
      configFromEnvironment(dir);
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).problems).to.deep.equal([
      `.env (${join(dir, '.env')}) is a directory, not a file of NAME=value lines: remove it or put the file in its place`,
    ]);
  });
});

describe('configFromEnvironment: a .env that is no regular file', () => {
  it('refuses a FIFO at once, naming it, instead of waiting on it for good (start-up hung without a word)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'env-file-'));
    try {
      execFileSync('mkfifo', [join(dir, '.env')]);
      expect(() => configFromEnvironment(dir))
        .to.throw(ConfigError)
        .with.property('problems')
        .that.deep.equals([`.env (${join(dir, '.env')}) is a FIFO or a socket, which would be waited on for good: write the NAME=value lines to a file`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads /dev/null as an empty .env (mounted over a baked-in one to blank it), and refuses /dev/zero once past the bound instead of reading it without end', () => {
    const dir = mkdtempSync(join(tmpdir(), 'env-file-'));
    try {
      symlinkSync('/dev/null', join(dir, '.env'));
      expect(() => configFromEnvironment(dir, () => undefined)).to.not.throw();
      rmSync(join(dir, '.env'));
      symlinkSync('/dev/zero', join(dir, '.env'));
      expect(() => configFromEnvironment(dir, () => undefined))
        .to.throw(ConfigError)
        .with.property('problems')
        .that.deep.equals([`.env (${join(dir, '.env')}) is more than 1048576 bytes: a file of NAME=value lines is far smaller`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('configFromEnvironment: what .env holds that Node would ignore without a word', () => {
  let dir: string;
  const written: string[] = [];
  const withEnvFile = (text: string): void => {
    writeFileSync(join(dir, '.env'), text);
    for (const line of text.split('\n')) {
      const name = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(line)?.[1];
      if (name !== undefined && process.env[name] === undefined) written.push(name);
    }
  };
  const refusal = (): readonly string[] => {
    try {
      configFromEnvironment(dir, () => undefined);
    } catch (error) {
      expect(error).to.be.instanceOf(ConfigError);
      return (error as ConfigError).problems;
    }
    throw new Error('configFromEnvironment accepted the .env');
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'env-file-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    for (const name of written.splice(0)) delete process.env[name];
  });
  isolateEnvironment([
    'DATABSE_URL',
    'PROT',
    'log_level',
    'PORT',
    'TELEGRAM_BOT_TOKEN',
    'JOB_AGENT_COMMAND',
    'LOG_LEVEL',
    'TELEGRAM_ALLOWED_CHAT_IDS',
    'LLM_MODEL',
    'REQUEST_TIMEOUT_MS',
    'SHUTDOWN_TIMEOUT_MS',
    'MY_NOTE',
    'COMMAND_ENV',
    'PORTS',
    'PORT0',
    'DEPLOY_TOKEN',
    'AGENT_LLM_SEARCH_KEY',
    'OPENAI_API_KEY',
  ]);

  it('a near-miss of a setting (DATABSE_URL, PROT, log_level) stops it with "did you mean", before anything is set', () => {
    withEnvFile(`# mine\nDATABSE_URL=postgres://u@h/db\nPROT=3001\nlog_level=debug\n`);
    expect(refusal()).to.deep.equal([
      '.env line 2: DATABSE_URL is not a setting; did you mean DATABASE_URL? (a variable of your own for command actions goes in COMMAND_ENV)',
      '.env line 3: PROT is not a setting; did you mean PORT? (a variable of your own for command actions goes in COMMAND_ENV)',
      '.env line 4: log_level is not a setting; did you mean LOG_LEVEL? (a variable of your own for command actions goes in COMMAND_ENV)',
    ]);
    expect(process.env.DATABSE_URL).to.equal(undefined);
  });

  it('refuses a setting’s name numbered or in the plural (PORT0, PORTS) in .env, which is written for the service (the environment only warns of other names)', () => {
    withEnvFile('PORT0=3001\nPORTS=3001\n');
    expect(refusal()).to.deep.equal([
      '.env line 1: PORT0 is not a setting; did you mean PORT? (a variable of your own for command actions goes in COMMAND_ENV)',
      '.env line 2: PORTS is not a setting; did you mean PORT? (a variable of your own for command actions goes in COMMAND_ENV)',
    ]);
  });

  it('a line that is not NAME=value but starts with a setting (PORT:39557) stops it naming the line, never the value', () => {
    withEnvFile('PORT:39557\nTELEGRAM_BOT_TOKEN 123:secret\n');
    const problems = refusal();
    expect(problems).to.deep.equal([
      '.env line 1 (PORT…) is not NAME=value, so PORT would not be set: write PORT=<value>',
      '.env line 2 (TELEGRAM_BOT_TOKEN…) is not NAME=value, so TELEGRAM_BOT_TOKEN would not be set: write TELEGRAM_BOT_TOKEN=<value>',
    ]);
    expect(problems.join('\n')).to.not.include('secret');
  });

  it('a quote that no later line closes stops it, naming the line and the setting, never the value: Node keeps the quote in the value', () => {
    // JOB_AGENT_COMMAND="echo … without its closing quote started the service, and every job's
    // command then failed with a shell syntax error; the lines after it went unchecked.
    withEnvFile('JOB_AGENT_COMMAND="echo secret-ish\nPROT=3001\n');
    const problems = refusal();
    expect(problems).to.deep.equal([
      '.env line 1: the value of JOB_AGENT_COMMAND opens a " that no later line closes, so the " would be part of the value; close it on line 1, or remove it',
      '.env line 2: PROT is not a setting; did you mean PORT? (a variable of your own for command actions goes in COMMAND_ENV)',
    ]);
    expect(problems.join('\n')).to.not.include('secret-ish');
  });

  it('a quote closed only lines later, with settings between, stops it naming the settings that would not be set; a value over several lines without settings in it passes', () => {
    withEnvFile(["JOB_AGENT_COMMAND='echo hi", 'PORT=3001', 'LOG_LEVEL=debug', "TELEGRAM_ALLOWED_CHAT_IDS='42'", ''].join('\n'));
    expect(refusal()).to.deep.equal([
      ".env line 1: the value of JOB_AGENT_COMMAND opens a ' that only line 4 closes, so lines 2–4 are part of that value and PORT, LOG_LEVEL, TELEGRAM_ALLOWED_CHAT_IDS would not be set; close the ' on line 1",
    ]);
    withEnvFile(['LLM_MODEL="a', 'b"', 'LOG_LEVEL=warn', ''].join('\n'));
    expect(configFromEnvironment(dir, () => undefined).logLevel).to.equal('warn');
  });

  it('skips a byte-order mark before the first line (Windows editors write one): its setting is set, not silently dropped', () => {
    // Node's parser kept the mark as part of the first name ("\uFEFFREQUEST_TIMEOUT_MS"), so the
    // setting was not set, and the check, which trimmed it away, said nothing.
    expect(process.env.REQUEST_TIMEOUT_MS).to.equal(undefined);
    withEnvFile('\uFEFFREQUEST_TIMEOUT_MS=4321\nSHUTDOWN_TIMEOUT_MS=1234\n');
    written.push('REQUEST_TIMEOUT_MS');
    const warnings: string[] = [];
    const config = configFromEnvironment(dir, (line) => warnings.push(line));
    expect(warnings).to.deep.equal([]);
    expect(config.requestTimeoutMs).to.equal(4321);
    expect(config.shutdownTimeoutMs).to.equal(1234);
    expect(Object.keys(process.env).filter((name) => name.startsWith('\uFEFF'))).to.deep.equal([]);
  });

  it("leaves a variable already set in the environment as it is, as Node's loader did", () => {
    withEnvFile('SHUTDOWN_TIMEOUT_MS=1234\n');
    process.env.SHUTDOWN_TIMEOUT_MS = '2345';
    try {
      expect(configFromEnvironment(dir, () => undefined).shutdownTimeoutMs).to.equal(2345);
    } finally {
      delete process.env.SHUTDOWN_TIMEOUT_MS;
    }
  });

  it('warns, one line each, of a name far from every setting, a line that does not parse and a name given twice; quoted lines and own variables pass', () => {
    withEnvFile(
      [
        'LOG_LEVEL=warn',
        'MY_NOTE=1',
        'garbage here',
        'LOG_LEVEL=error',
        'COMMAND_ENV=DEPLOY_TOKEN,PORTS',
        'PORTS="80',
        '443"',
        'DEPLOY_TOKEN=x',
        'AGENT_LLM_SEARCH_KEY=k',
        'OPENAI_API_KEY=k',
        'NODE_OPTIONS=--max-old-space-size=512',
        '',
      ].join('\n'),
    );
    const warnings: string[] = [];
    const config = configFromEnvironment(dir, (line) => warnings.push(line));
    expect(warnings).to.deep.equal([
      '.env line 2: MY_NOTE is not a setting of the service: it is ignored, unless COMMAND_ENV names it for command actions',
      '.env line 3 (garbage…) is not NAME=value nor a # comment: it is ignored',
      '.env line 4: LOG_LEVEL is given again (line 1): the last value counts',
    ]);
    expect(config.logLevel).to.equal('error');
  });
});

describe('configFromEnvironment: a setting misspelled in the environment itself', () => {
  // The machine's environment may hold near-misses of its own (another tool's DATABASE_URI, a
  // platform's LOGLEVEL), each warned of too: only the warnings about the names a test sets are
  // compared.
  const TOUCHED = [
    'LOG_LEVL',
    'DATABSE_URL',
    'port',
    'MY_TOOL_HOME',
    'AGENT_LOG_LEVL',
    'LOG_LEVEL',
    'PORT0',
    'PORT1',
    'PORT12',
    'PORTS',
    'port0',
    'DATABASE_URL2',
    'PROT',
    'LOGLEVEL',
  ];
  let dir: string;
  const set = (values: Record<string, string>): void => {
    for (const [name, value] of Object.entries(values)) process.env[name] = value;
  };
  const about = (warnings: readonly string[]): string[] => warnings.filter((line) => TOUCHED.some((name) => line.startsWith(`environment: ${name} `)));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'env-names-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  isolateEnvironment(TOUCHED);

  it('warns at the service’s start, one line each, naming the setting meant (LOG_LEVL=debug npm start ran at info without a word), and starts', () => {
    set({ LOG_LEVL: 'debug', DATABSE_URL: 'postgres://u:secret@h/db', port: '3001', MY_TOOL_HOME: '/opt', AGENT_LOG_LEVL: 'x' });
    const warnings: string[] = [];
    const config = configFromEnvironment(dir, (line) => warnings.push(line), { checkEnvironment: true });
    expect(about(warnings)).to.have.members([
      'environment: LOG_LEVL is not a setting; did you mean LOG_LEVEL? It is ignored',
      'environment: DATABSE_URL is not a setting; did you mean DATABASE_URL? It is ignored',
      'environment: port is not a setting; did you mean PORT? It is ignored',
    ]);
    expect(warnings.join('\n')).to.not.include('secret');
    expect(config.logLevel).to.equal('info');
  });

  it('does not warn of a setting’s name numbered or in the plural (PORT0, PORT1, PORTS: Marathon sets them with PORT on every task), and still of a typo beside it', () => {
    set({
      PORT0: '31000',
      PORT1: '31001',
      PORT12: '31012',
      PORTS: '31000,31001',
      port0: '1',
      DATABASE_URL2: 'postgres://u:secret@h/other',
      PROT: '3001',
      LOGLEVEL: 'debug',
      LOG_LEVL: 'debug',
    });
    const warnings: string[] = [];
    configFromEnvironment(dir, (line) => warnings.push(line), { checkEnvironment: true });
    expect(about(warnings)).to.have.members([
      'environment: PROT is not a setting; did you mean PORT? It is ignored',
      'environment: LOGLEVEL is not a setting; did you mean LOG_LEVEL? It is ignored',
      'environment: LOG_LEVL is not a setting; did you mean LOG_LEVEL? It is ignored',
    ]);
  });

  it('checks the environment’s names beside a .env as well', () => {
    writeFileSync(join(dir, '.env'), 'LOG_LEVEL=warn\n');
    set({ LOG_LEVL: 'debug' });
    const warnings: string[] = [];
    expect(configFromEnvironment(dir, (line) => warnings.push(line), { checkEnvironment: true }).logLevel).to.equal('warn');
    expect(about(warnings)).to.deep.equal(['environment: LOG_LEVL is not a setting; did you mean LOG_LEVEL? It is ignored']);
  });

  it('says nothing of the environment for a CLI command (no checkEnvironment)', () => {
    set({ LOG_LEVL: 'debug' });
    const warnings: string[] = [];
    configFromEnvironment(dir, (line) => warnings.push(line));
    expect(warnings).to.deep.equal([]);
  });
});
