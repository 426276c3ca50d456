import { expect } from 'chai';
import { ConfigError, loadConfig, parseSize } from '../../../src/container/config.js';

const problemsOf = (env: Record<string, string>): readonly string[] => {
  try {
    loadConfig(env, '/srv/gw');
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
};

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({}, '/srv/gw')).to.deep.equal({
      port: 3000,
      host: '127.0.0.1',
      dataDir: '/srv/gw/data',
      databaseUrl: undefined,
      databaseCreate: false,
      databaseTimeouts: { connectMs: 5_000, queryMs: 30_000 },
      bodyLimit: 1024 * 1024,
      requestTimeoutMs: 60_000,
      logLevel: 'info',
      triggersFile: '/srv/gw/config/TRIGGERS.json',
      triggersDir: '/srv/gw/triggers',
      cronsFile: '/srv/gw/config/CRONS.json',
      configWatch: true,
      shutdownTimeoutMs: 10_000,
      codehostWebhookSecret: undefined,
      metricsToken: undefined,
      publicUrl: undefined,
      trustedProxies: 0,
      adminHosts: [],
      commandTimeoutMs: 60_000,
      commandEnv: [],
      webhook: { timeoutMs: 10_000, attempts: 4, backoffMs: 1000 },
      approvalTimeoutMs: 1_800_000,
      queue: { concurrency: 4, heartbeatSeconds: 10, superviseIntervalSeconds: 15 },
      yieldBusyAbove: 0.7,
      chat: { historyTurns: 20, maxSteps: 5, albumSettleMs: 1500, systemPromptFile: '/srv/gw/config/CHAT_SYSTEM_PROMPT.md', systemPromptFileGiven: false },
      channels: {
        telegram: {
          botToken: undefined,
          webhookSecret: undefined,
          apiUrl: 'https://api.telegram.org',
          allowedChatIds: new Set(),
          mode: 'webhook',
          variables: {
            botToken: 'TELEGRAM_BOT_TOKEN',
            webhookSecret: 'TELEGRAM_WEBHOOK_SECRET',
            allowedChats: 'TELEGRAM_ALLOWED_CHAT_IDS',
            mode: 'TELEGRAM_MODE',
            approvalChat: 'TELEGRAM_APPROVAL_CHAT_ID',
          },
        },
        slack: {
          botToken: undefined,
          webhookSecret: undefined,
          apiUrl: 'https://slack.com/api',
          allowedChatIds: new Set(),
          variables: {
            botToken: 'SLACK_BOT_TOKEN',
            webhookSecret: 'SLACK_SIGNING_SECRET',
            allowedChats: 'SLACK_ALLOWED_CHANNEL_IDS',
            approvalChat: 'SLACK_APPROVAL_CHANNEL_ID',
          },
        },
      },
      codehost: undefined,
      transcription: undefined,
      llm: {
        provider: undefined,
        model: undefined,
        baseUrls: { anthropic: undefined, openai: undefined, google: undefined, custom: undefined },
        timeoutMs: 120_000,
        maxRetries: 2,
      },
      jobs: {
        repoDir: '/srv/gw/data/jobs-repo',
        agentCommand: undefined,
        timeoutMs: 3_600_000,
        concurrency: 1,
        maxSteps: 30,
        sandbox: 'none',
        sandboxNetwork: 'host',
        queueLimit: 100,
      },
      retention: {
        deliveriesDays: 7,
        chatTurnsDays: 90,
        actionRunsDays: 30,
        inboundRequestsDays: 30,
        finishedTaskSeconds: 7 * 86_400,
        waitingTaskSeconds: 14 * 86_400,
        chatJobKeysDays: 15,
        chatAnswerRememberedDays: 7,
        sweepIntervalMs: 3_600_000,
      },
    });
  });

  it('refuses a DATA_DIR in a file system of the kernel (start-up hung under /proc), naming it; takes one that only starts alike', () => {
    for (const dir of ['/proc/self/nope', '/proc', '/sys/fs/x', '/dev/null/x', '../../proc/1'])
      expect(problemsOf({ DATA_DIR: dir }).join('\n'), dir).to.match(/^DATA_DIR: .* is in a file system of the kernel/);
    expect(loadConfig({ DATA_DIR: '/process/data' }, '/srv/gw').dataDir).to.equal('/process/data');
    expect(loadConfig({ DATA_DIR: '/devices' }, '/srv/gw').dataDir).to.equal('/devices');
  });

  it('refuses a path setting that starts with ~ (nothing expands it: it was a directory named ~ in the working directory)', () => {
    const TILDE = '~ is not expanded (nothing here does: not .env, not a systemd EnvironmentFile, not a shell in quotes); write the full path';
    expect(problemsOf({ DATA_DIR: '~/agw-data' })).to.deep.equal([`DATA_DIR: ${TILDE}`]);
    expect(
      problemsOf({ TRIGGERS_FILE: '~/t.json', TRIGGERS_DIR: '~', CRONS_FILE: '~x/c.json', CHAT_SYSTEM_PROMPT_FILE: '~/p.md', JOBS_REPO: '~/repo' }),
    ).to.deep.equal(['TRIGGERS_FILE', 'TRIGGERS_DIR', 'CRONS_FILE', 'CHAT_SYSTEM_PROMPT_FILE', 'JOBS_REPO'].map((name) => `${name}: ${TILDE}`));
    expect(loadConfig({ DATA_DIR: 'data~/x' }, '/srv/gw').dataDir).to.equal('/srv/gw/data~/x');
  });

  it("refuses, on the embedded database, a DATA_DIR too long for its admin socket's path (listen EINVAL once the database was made), naming the limit", () => {
    const longest = `/srv/${'d'.repeat(107 - '/srv/'.length - '/admin.sock'.length)}`;
    expect(loadConfig({ DATA_DIR: longest }, '/srv/gw').dataDir).to.equal(longest);
    expect(problemsOf({ DATA_DIR: `${longest}x` })).to.deep.equal([
      // The path cut as other refused values are (its first 40 characters and …), its length in bytes said.
      `DATA_DIR: too long: the admin socket "${`${longest}x/admin.sock`.slice(0, 40)}…" would be 108 bytes, and a Unix socket's path holds at most 107; choose a DATA_DIR of at most 96 bytes`,
    ]);
    // Relative: resolved against the working directory first.
    expect(problemsOf({ DATA_DIR: 'd'.repeat(90) })[0]).to.match(/^DATA_DIR: too long: the admin socket "\/srv\/gw\/d{32}…" would be 109 bytes/);
    // However long the path, the problem stays one short line.
    expect(problemsOf({ DATA_DIR: `/srv/${'d'.repeat(100_000)}` })[0]).to.have.length.below(250);
    // On PostgreSQL there is no admin socket.
    expect(loadConfig({ DATA_DIR: `${longest}x`, DATABASE_URL: 'postgres://u@h/db' }, '/srv/gw').dataDir).to.equal(`${longest}x`);
  });

  it('reads the retention settings; inbound requests outlive waiting tasks, and 0 keeps for good', () => {
    const read = (env: Record<string, string>) => loadConfig(env, '/srv/gw').retention;
    expect(
      read({
        RETENTION_DELIVERIES_DAYS: '2',
        RETENTION_CHAT_TURNS_DAYS: '365',
        RETENTION_ACTION_RUNS_DAYS: '60',
        RETENTION_FINISHED_TASKS_DAYS: '3',
        RETENTION_SWEEP_MINUTES: '15',
      }),
    ).to.deep.equal({
      deliveriesDays: 2,
      chatTurnsDays: 365,
      actionRunsDays: 60,
      inboundRequestsDays: 60,
      finishedTaskSeconds: 3 * 86_400,
      waitingTaskSeconds: 14 * 86_400,
      chatJobKeysDays: 15,
      chatAnswerRememberedDays: 2,
      sweepIntervalMs: 15 * 60_000,
    });
    // A chat answer is remembered by its job keys (15 days), its reply record (deliveries) and its
    // saved exchange (chat turns): a task run again is answered only within the shortest of them.
    expect(read({})).to.include({ chatAnswerRememberedDays: 7 });
    expect(read({ RETENTION_DELIVERIES_DAYS: '30', RETENTION_CHAT_TURNS_DAYS: '3' })).to.include({ chatAnswerRememberedDays: 3 });
    expect(read({ RETENTION_DELIVERIES_DAYS: '0', RETENTION_CHAT_TURNS_DAYS: '0' })).to.include({ chatAnswerRememberedDays: 15 });
    // A queued trigger run can wait 14 days for its request: requests stay 15 days even when action runs go sooner.
    expect(read({ RETENTION_ACTION_RUNS_DAYS: '7' })).to.include({ actionRunsDays: 7, inboundRequestsDays: 15 });
    // Deliveries remembered longer, or for good, keep no request longer: an old delivery sent again runs nothing (ReceiveCodehostEvent).
    expect(read({ RETENTION_DELIVERIES_DAYS: '60', RETENTION_ACTION_RUNS_DAYS: '30' })).to.include({
      deliveriesDays: 60,
      actionRunsDays: 30,
      inboundRequestsDays: 30,
    });
    expect(read({ RETENTION_DELIVERIES_DAYS: '0', RETENTION_ACTION_RUNS_DAYS: '7' })).to.include({
      deliveriesDays: 0,
      actionRunsDays: 7,
      inboundRequestsDays: 15,
    });
    expect(
      read({ RETENTION_ACTION_RUNS_DAYS: '0', RETENTION_DELIVERIES_DAYS: '0', RETENTION_CHAT_TURNS_DAYS: '0', RETENTION_FINISHED_TASKS_DAYS: '0' }),
    ).to.include({
      actionRunsDays: 0,
      inboundRequestsDays: 0,
      deliveriesDays: 0,
      chatTurnsDays: 0,
      finishedTaskSeconds: 0,
    });
  });

  it('refuses retention shorter than de-duplication needs, naming the variable', () => {
    expect(problemsOf({ RETENTION_DELIVERIES_DAYS: '1' })).to.deep.equal([
      'RETENTION_DELIVERIES_DAYS: "1" is less than 2 days (deliveries are remembered to refuse redeliveries, and Telegram redelivers for up to a day); 0 keeps them for good',
    ]);
    expect(problemsOf({ RETENTION_FINISHED_TASKS_DAYS: '1' })[0]).to.match(/^RETENTION_FINISHED_TASKS_DAYS: "1" is less than 2 days/);
    expect(problemsOf({ RETENTION_CHAT_TURNS_DAYS: 'ninety' })).to.deep.equal([
      'RETENTION_CHAT_TURNS_DAYS: "ninety" is not a whole number between 0 and 36500',
    ]);
    expect(problemsOf({ RETENTION_SWEEP_MINUTES: '0' })[0]).to.match(/^RETENTION_SWEEP_MINUTES: "0" is not a whole number between 1 and 1440/);
  });

  it('reads every variable', () => {
    const config = loadConfig(
      {
        PORT: '8080',
        HOST: '0.0.0.0',
        DATA_DIR: '/var/lib/gw',
        DATABASE_URL: 'postgres://u:p@db/gw',
        DATABASE_CREATE: 'true',
        BODY_LIMIT: '512kb',
        LOG_LEVEL: 'DEBUG',
        TRIGGERS_FILE: 't.json',
        TRIGGERS_DIR: '/opt/t',
      },
      '/srv/gw',
    );
    expect(config).to.include({
      port: 8080,
      host: '0.0.0.0',
      dataDir: '/var/lib/gw',
      databaseUrl: 'postgres://u:p@db/gw',
      databaseCreate: true,
      bodyLimit: 512 * 1024,
      logLevel: 'debug',
      triggersFile: '/srv/gw/t.json',
      triggersDir: '/opt/t',
    });
  });

  it('reads an environment object like process.env, which is no plain object', () => {
    const env = Object.setPrototypeOf(
      { PORT: '8080', TELEGRAM_BOT_TOKEN: '1:a', TELEGRAM_WEBHOOK_SECRET: 's' },
      Object.getPrototypeOf(process.env) as object,
    ) as Record<string, string>;
    const config = loadConfig(env, '/srv/gw');
    expect(config.port).to.equal(8080);
    expect(config.channels.telegram.botToken).to.equal('1:a');
  });

  it('names the variable and the bad value', () => {
    expect(problemsOf({ PORT: 'eighty' })).to.deep.equal(['PORT: "eighty" is not a whole number between 0 and 65535']);
    // a webhook action's attempts and doubling waits must fit in the time a trigger run may last
    expect(problemsOf({ WEBHOOK_ATTEMPTS: '20', WEBHOOK_BACKOFF_MS: '600000' })).to.deep.equal([
      'WEBHOOK_BACKOFF_MS: "600000" with WEBHOOK_ATTEMPTS=20 and WEBHOOK_TIMEOUT_SECONDS=10 lets one webhook action last up to 87381 hours (the waits double); at most 12 hours: lower one of them',
    ]);
    expect(loadConfig({ WEBHOOK_ATTEMPTS: '10', WEBHOOK_BACKOFF_MS: '60000' }, '/srv').webhook).to.deep.include({ attempts: 10, backoffMs: 60_000 });
    // A URL the parser refuses (a port that is no number, no host) fails here, not at every call.
    for (const bad of ['https://api.telegram.org:abc', 'https://', 'http://[::1']) {
      expect(problemsOf({ TELEGRAM_API_URL: bad }), bad).to.deep.equal([`TELEGRAM_API_URL: "${bad}" is not an http(s) URL`]);
    }
    expect(problemsOf({ CODEHOST_API_URL: 'ftp://x' })).to.deep.equal(['CODEHOST_API_URL: "ftp://x" is not an http(s) URL']);
    // A refused URL's user, password, query and fragment are not repeated: a base URL may carry a credential there.
    for (const [bad, shown] of [
      ['https://user:s3cr3t-pass@llm.example.com /v1', 'https://…@llm.example.com /v1'],
      ['ftp://user:s3cr3t-pass@llm.example.com/v1', 'ftp://…@llm.example.com/v1'],
      ['https://user:s3cr3t-pass@/v1', 'https://…@/v1'],
      ['https://llm.example.com/v1?api-key=s3cr3t-key&x= 1', 'https://llm.example.com/v1?…'],
      ['https://llm example.com/v1#s3cr3t-frag', 'https://llm example.com/v1#…'],
      // Refused for the credentials themselves: a '/', '?' or '#' in the password, a scheme forgotten or cut.
      ['https://user:pa/s3cr3t@llm.example.com', 'https://…@llm.example.com'],
      ['https://user:p#s3cr3t@llm.example.com', 'https://…@llm.example.com'],
      ['https://user:p?s3cr3t@llm.example.com', 'https://…@llm.example.com'],
      ['https:/user:s3cr3t@llm.example.com', 'https:/…@llm.example.com'],
      ['user:s3cr3t@llm.example.com', 'user:…@llm.example.com'],
    ]) {
      expect(problemsOf({ LLM_BASE_URL: bad }), bad).to.deep.equal([`LLM_BASE_URL: "${shown}" is not an http(s) URL`]);
      expect(problemsOf({ PUBLIC_URL: bad }).join('\n'), bad).to.not.include('s3cr3t');
    }
    // A secret of spaces alone is refused (as a key it is guessable), never taken, and not echoed.
    for (const name of ['CODEHOST_WEBHOOK_SECRET']) {
      expect(problemsOf({ [name]: '   ' }), name).to.deep.equal([`${name}: is only whitespace: set the secret, or leave the variable unset`]);
    }
    expect(problemsOf({ PORT: '70000' })[0]).to.match(/^PORT: "70000"/);
    expect(problemsOf({ BODY_LIMIT: 'lots' })[0]).to.match(/^BODY_LIMIT: "lots" is not a size/);
    // A size past 1 GiB is refused, above all one read as Infinity (which would switch the limit off) or past what a double holds exactly.
    for (const name of ['BODY_LIMIT', 'TRANSCRIBE_MAX_SIZE']) {
      for (const bad of ['9'.repeat(400), '9007199254740993', '1025mb', '2gb', '1073741825']) {
        expect(problemsOf({ [name]: bad }), `${name}=${bad.slice(0, 20)}`).to.deep.equal([
          `${name}: "${bad.length > 40 ? `${bad.slice(0, 40)}…` : bad}" is more than the largest size taken, 1gb (1073741824 bytes)`,
        ]);
      }
      expect(loadConfig({ [name]: '1gb' }, '/srv'), name).to.not.equal(undefined);
    }
    expect(loadConfig({ BODY_LIMIT: '1gb' }, '/srv').bodyLimit).to.equal(1024 ** 3);
    expect(problemsOf({ REQUEST_TIMEOUT_MS: '500' })).to.deep.equal(['REQUEST_TIMEOUT_MS: "500" is not a whole number between 1000 and 3600000']);
    // Milliseconds, at least a second: a value meant as seconds ("30") is refused, not taken as 30 ms.
    expect(problemsOf({ DATABASE_QUERY_TIMEOUT_MS: '30', DATABASE_CONNECT_TIMEOUT_MS: '5s' })).to.deep.equal([
      'DATABASE_CONNECT_TIMEOUT_MS: "5s" is not a whole number between 1000 and 600000',
      'DATABASE_QUERY_TIMEOUT_MS: "30" is not a whole number between 1000 and 3600000',
    ]);
    expect(loadConfig({ DATABASE_QUERY_TIMEOUT_MS: '120000', DATABASE_CONNECT_TIMEOUT_MS: '2000' }, '/srv').databaseTimeouts).to.deep.equal({
      connectMs: 2_000,
      queryMs: 120_000,
    });
    expect(problemsOf({ LOG_LEVEL: 'loud' })[0]).to.match(/^LOG_LEVEL: "loud" is not one of fatal, error/);
    expect(problemsOf({ DATABASE_CREATE: 'yes' })).to.deep.equal(['DATABASE_CREATE: "yes" is not true or false']);
    // As written, not lower-cased.
    expect(problemsOf({ DATABASE_CREATE: 'Yes' })).to.deep.equal(['DATABASE_CREATE: "Yes" is not true or false']);
    expect(problemsOf({ LOG_LEVEL: 'Loud' })[0]).to.match(/^LOG_LEVEL: "Loud" is not one of/);
  });

  it('takes JOB_SANDBOX none or bwrap, and refuses anything else naming the variable', () => {
    expect(loadConfig({ JOB_SANDBOX: 'bwrap' }, '/srv/gw').jobs.sandbox).to.equal('bwrap');
    expect(problemsOf({ JOB_SANDBOX: 'docker' })).to.deep.equal(['JOB_SANDBOX: "docker" is not one of none, bwrap']);
  });

  it('reads JOB_QUEUE_LIMIT (default 100; 0: no limit) and stops start-up naming it for a value that is no whole number from 0 to 100000', () => {
    expect(loadConfig({ JOB_QUEUE_LIMIT: '5' }, '/srv/gw').jobs.queueLimit).to.equal(5);
    expect(loadConfig({ JOB_QUEUE_LIMIT: '100000' }, '/srv/gw').jobs.queueLimit).to.equal(100_000);
    expect(loadConfig({ JOB_QUEUE_LIMIT: '0' }, '/srv/gw').jobs.queueLimit).to.equal(undefined);
    for (const value of ['-1', '100001', 'ten', '1.5', 'unlimited'])
      expect(problemsOf({ JOB_QUEUE_LIMIT: value }), value).to.deep.equal([`JOB_QUEUE_LIMIT: "${value}" is not a whole number between 0 and 100000`]);
  });

  it('keeps JOB_TIMEOUT_SECONDS within what the task queue lets a job run (24 hours, less 10 minutes)', () => {
    expect(loadConfig({ JOB_TIMEOUT_SECONDS: '85800' }, '/srv/gw').jobs.timeoutMs).to.equal(85_800_000);
    expect(problemsOf({ JOB_TIMEOUT_SECONDS: '86400' })).to.deep.equal(['JOB_TIMEOUT_SECONDS: "86400" is not a whole number between 1 and 85800']);
  });

  it('reads TRUST_PROXY as the number of proxies in front: false/0 none, true one, or 1 to 10', () => {
    const hops = (value: string) => loadConfig({ TRUST_PROXY: value }, '/srv/gw').trustedProxies;
    expect(loadConfig({}, '/srv/gw').trustedProxies).to.equal(0);
    expect([hops('false'), hops('0'), hops('TRUE'), hops('1'), hops('2'), hops('10')]).to.deep.equal([0, 0, 1, 1, 2, 10]);
    for (const bad of ['yes', '11', '-1', '1.5']) {
      expect(problemsOf({ TRUST_PROXY: bad }), bad).to.deep.equal([`TRUST_PROXY: "${bad}" is not true, false or a number of proxies from 1 to 10`]);
    }
  });

  it('reads QUEUE_YIELD_BUSY_PERCENT as a share (100: never wait) and refuses 0 or more than 100', () => {
    expect(loadConfig({ QUEUE_YIELD_BUSY_PERCENT: '100' }, '/srv/gw').yieldBusyAbove).to.equal(1);
    expect(loadConfig({ QUEUE_YIELD_BUSY_PERCENT: '55' }, '/srv/gw').yieldBusyAbove).to.equal(0.55);
    expect(problemsOf({ QUEUE_YIELD_BUSY_PERCENT: '0' })[0]).to.match(/^QUEUE_YIELD_BUSY_PERCENT: "0" is not a whole number between 1 and 100/);
    expect(problemsOf({ QUEUE_YIELD_BUSY_PERCENT: '101' })[0]).to.match(/^QUEUE_YIELD_BUSY_PERCENT: "101"/);
  });

  it('reads COMMAND_ENV as a list of variable names, each once', () => {
    expect(loadConfig({ COMMAND_ENV: ' FOO, BAR_2 ,,_x,FOO' }, '/srv/gw').commandEnv).to.deep.equal(['FOO', 'BAR_2', '_x']);
  });

  it('refuses COMMAND_ENV names that are no variable names, or that start with AGW_ARG_ (template values)', () => {
    expect(problemsOf({ COMMAND_ENV: 'OK,2BAD,WITH-DASH,AGW_ARG_1' })).to.deep.equal([
      'COMMAND_ENV: "2BAD" is not a variable name (letters, digits and _, not starting with a digit)',
      'COMMAND_ENV: "WITH-DASH" is not a variable name (letters, digits and _, not starting with a digit)',
      'COMMAND_ENV: "AGW_ARG_1" starts with AGW_ARG_, which is reserved for template values',
    ]);
  });

  it('repeats at most the first 40 characters of a refused value (200 of a URL): a megabyte-long PORT or BODY_LIMIT was printed whole', () => {
    const long = (head: string) => `${head}${'x'.repeat(1024 * 1024)}`;
    const cut = (head: string) => `${long(head).slice(0, 40)}…`;
    expect(problemsOf({ PORT: long('80') })).to.deep.equal([`PORT: "${cut('80')}" is not a whole number between 0 and 65535`]);
    expect(problemsOf({ BODY_LIMIT: long('1mb') })).to.deep.equal([`BODY_LIMIT: "${cut('1mb')}" is not a size such as 1048576, 512kb or 1mb`]);
    expect(problemsOf({ BODY_LIMIT: '9'.repeat(1024 * 1024) })).to.deep.equal([
      `BODY_LIMIT: "${'9'.repeat(40)}…" is more than the largest size taken, 1gb (1073741824 bytes)`,
    ]);
    expect(problemsOf({ REQUEST_TIMEOUT_MS: long('6') })).to.deep.equal([`REQUEST_TIMEOUT_MS: "${cut('6')}" is not a whole number between 1000 and 3600000`]);
    expect(problemsOf({ TRUST_PROXY: long('t') })).to.deep.equal([`TRUST_PROXY: "${cut('t')}" is not true, false or a number of proxies from 1 to 10`]);
    expect(problemsOf({ DATABASE_CREATE: long('y') })).to.deep.equal([`DATABASE_CREATE: "${cut('y')}" is not true or false`]);
    expect(problemsOf({ LOG_LEVEL: long('l') })[0]).to.equal(`LOG_LEVEL: "${cut('l')}" is not one of fatal, error, warn, info, debug, trace, silent`);
    expect(problemsOf({ LLM_BASE_URL: long('https://llm example.com/') })).to.deep.equal([
      `LLM_BASE_URL: "${long('https://llm example.com/').slice(0, 200)}…" is not an http(s) URL`,
    ]);
    expect(problemsOf({ ADMIN_HOSTS: long('a b') })[0]).to.equal(
      `ADMIN_HOSTS: "${cut('a b')}" is not a host name (write gateway.example.com: no scheme, port or path), nor *`,
    );
    expect(problemsOf({ COMMAND_ENV: long('1') })[0]).to.match(new RegExp(`^COMMAND_ENV: "${cut('1')}" is not a variable name`));
    // A value cut in the middle of a surrogate pair drops the half.
    expect(problemsOf({ PORT: `${'8'.repeat(39)}🎉${'0'.repeat(100)}` })[0]).to.equal(`PORT: "${'8'.repeat(39)}…" is not a whole number between 0 and 65535`);
  });

  it('reports every bad variable at once', () => {
    expect(problemsOf({ PORT: '-1', BODY_LIMIT: '0', LOG_LEVEL: 'x' }).map((p) => p.split(':')[0])).to.deep.equal(['PORT', 'BODY_LIMIT', 'LOG_LEVEL']);
  });

  it('refuses a DATABASE_URL that is not PostgreSQL without echoing it (it may hold a password)', () => {
    const [problem] = problemsOf({ DATABASE_URL: 'mysql://root:hunter2@db/gw' });
    expect(problem).to.equal('DATABASE_URL: not a postgres:// or postgresql:// URL');
    expect(problem).not.to.contain('hunter2');
  });

  it('refuses a METRICS_TOKEN with whitespace or a control character inside (no bearer token can carry one) without echoing it', () => {
    for (const bad of ['scrape me', 'scrape\tme', 'scrape\u00a0me', 'scrape\u0001me', 'scrape\u007fme']) {
      expect(problemsOf({ METRICS_TOKEN: bad }), JSON.stringify(bad)).to.deep.equal([
        'METRICS_TOKEN: contains whitespace or a control character, which a bearer token cannot carry',
      ]);
    }
    // Around it, whitespace is trimmed as for every variable.
    expect(loadConfig({ METRICS_TOKEN: '  scrape-me.~+/=  ' }, '/srv/gw').metricsToken).to.equal('scrape-me.~+/=');
  });

  it('needs both CODEHOST_TOKEN and CODEHOST_REPO for jobs on GitHub Actions', () => {
    expect(problemsOf({ CODEHOST_TOKEN: 'ghp_x' })).to.deep.equal(['CODEHOST_REPO: required when CODEHOST_TOKEN is set (jobs on GitHub Actions need both)']);
    expect(problemsOf({ CODEHOST_TOKEN: 'ghp_x', CODEHOST_REPO: 'just-a-name' })[0]).to.equal('CODEHOST_REPO: "just-a-name" is not owner/name');
    expect(loadConfig({ CODEHOST_TOKEN: 'ghp_x', CODEHOST_REPO: 'acme/app' }).codehost).to.deep.equal({
      token: 'ghp_x',
      repo: 'acme/app',
      apiUrl: 'https://api.github.com',
      workflow: 'agent-job.yml',
      pollSeconds: 60,
      runStartSeconds: 1800,
      autoMerge: undefined,
    });
    expect(loadConfig({ CODEHOST_TOKEN: 'ghp_x', CODEHOST_REPO: 'acme/app', CODEHOST_WORKFLOW: 'agents.yaml' }).codehost?.workflow).to.equal('agents.yaml');
    expect(problemsOf({ CODEHOST_WORKFLOW: '../ci.yml' })).to.deep.equal(['CODEHOST_WORKFLOW: "../ci.yml" is not a workflow file name such as agent-job.yml']);
  });

  it('reads AUTO_MERGE and ALLOWED_PATHS (default logs/**), and needs the code host for them', () => {
    const github = { CODEHOST_TOKEN: 'ghp_x', CODEHOST_REPO: 'acme/app' };
    expect(loadConfig({ ...github, AUTO_MERGE: 'true' }).codehost?.autoMerge).to.deep.equal({ allowedPaths: ['logs/**'] });
    expect(loadConfig({ ...github, AUTO_MERGE: '1', ALLOWED_PATHS: ' logs/** , docs/*.md ,' }).codehost?.autoMerge).to.deep.equal({
      allowedPaths: ['logs/**', 'docs/*.md'],
    });
    expect(problemsOf({ AUTO_MERGE: 'true' })).to.deep.equal([
      'AUTO_MERGE: needs CODEHOST_TOKEN and CODEHOST_REPO: it merges the pull requests of jobs on GitHub Actions',
    ]);
    expect(problemsOf({ ...github, AUTO_MERGE: 'yes' })).to.deep.equal(['AUTO_MERGE: "yes" is not true or false']);
    expect(problemsOf({ ...github, AUTO_MERGE: 'true', ALLOWED_PATHS: '/etc/**,logs/a**' })).to.deep.equal([
      'ALLOWED_PATHS: "/etc/**" starts with /: paths are relative to the repository root',
      'ALLOWED_PATHS: "logs/a**": ** must be a whole path segment (logs/** or **/x.md)',
    ]);
    expect(problemsOf({ ...github, AUTO_MERGE: 'true', ALLOWED_PATHS: 'logs/**,docs/**/**/**/x.md' })).to.deep.equal([
      'ALLOWED_PATHS: "docs/**/**/**/x.md" has ** twice in a row: one ** spans any number of segments',
    ]);
    // A refused glob is repeated cut, as other refused values: a megabyte-long one was repeated whole.
    const long = `/logs/${'x'.repeat(1024 * 1024)}`;
    expect(problemsOf({ ...github, AUTO_MERGE: 'true', ALLOWED_PATHS: `logs/**,${long}` })).to.deep.equal([
      `ALLOWED_PATHS: "${long.slice(0, 40)}…" starts with /: paths are relative to the repository root`,
    ]);
  });

  it('needs LLM_BASE_URL and LLM_MODEL for the custom provider and uses the URL for the default provider only', () => {
    expect(problemsOf({ LLM_PROVIDER: 'custom' })).to.deep.equal([
      "LLM_BASE_URL: required when LLM_PROVIDER is custom (the server's /v1 URL)",
      'LLM_MODEL: required when LLM_PROVIDER is custom (it has no default model)',
    ]);
    expect(loadConfig({ LLM_PROVIDER: 'custom', LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'llama3' }).llm).to.include({ model: 'llama3' });
    const config = loadConfig({ LLM_PROVIDER: 'openai', LLM_BASE_URL: 'http://127.0.0.1:9/v1', ANTHROPIC_BASE_URL: 'http://a.test' });
    expect(config.llm.baseUrls).to.deep.equal({
      anthropic: 'http://a.test',
      openai: 'http://127.0.0.1:9/v1',
      google: undefined,
      custom: 'http://127.0.0.1:9/v1',
    });
    expect(problemsOf({ LLM_PROVIDER: 'acme' })[0]).to.equal('LLM_PROVIDER: "acme" is not one of anthropic, openai, google, custom');
  });

  it('requires the Slack signing secret with a bot token, a token of the form Slack issues, and Slack channel ids', () => {
    expect(problemsOf({ SLACK_BOT_TOKEN: 'xoxb-1-2-abc' })).to.deep.equal([
      'SLACK_SIGNING_SECRET: required when SLACK_BOT_TOKEN is set (the app\u2019s signing secret, from its "Basic Information" page: events are refused without it)',
    ]);
    expect(problemsOf({ SLACK_BOT_TOKEN: '123:abc', SLACK_SIGNING_SECRET: 's' })[0]).to.match(/^SLACK_BOT_TOKEN: is not a Slack bot token \(xoxb-/);
    expect(problemsOf({ SLACK_ALLOWED_CHANNEL_IDS: 'C0123ABC, general' })).to.deep.equal([
      'SLACK_ALLOWED_CHANNEL_IDS: "general" is not a Slack channel id (such as C0123ABCDEF, or D… for a direct message)',
    ]);
    expect(problemsOf({ SLACK_API_URL: 'slack.com' })[0]).to.match(/^SLACK_API_URL: "slack.com" is not an http\(s\) URL/);
    const slack = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
      SLACK_SIGNING_SECRET: ' spaced secret ',
      SLACK_API_URL: 'http://127.0.0.1:9/api/',
      SLACK_ALLOWED_CHANNEL_IDS: 'C0123ABC, D0456DEF',
    }).channels.slack;
    expect(slack).to.deep.include({ botToken: 'xoxb-1-2-abc', webhookSecret: ' spaced secret ', apiUrl: 'http://127.0.0.1:9/api' });
    expect([...slack.allowedChatIds]).to.deep.equal(['C0123ABC', 'D0456DEF']);
  });

  it("requires a Telegram webhook secret with a bot token, in the platform's alphabet, and numeric chat ids", () => {
    expect(problemsOf({ TELEGRAM_BOT_TOKEN: '123:abc' })).to.deep.equal([
      'TELEGRAM_WEBHOOK_SECRET: required when TELEGRAM_BOT_TOKEN is set (the webhook must be able to tell the platform from anyone else): set it, e.g. to the output of openssl rand -hex 32, or set TELEGRAM_MODE=polling where the service has no public HTTPS address',
    ]);
    expect(problemsOf({ TELEGRAM_WEBHOOK_SECRET: 'has space' })[0]).to.match(/^TELEGRAM_WEBHOOK_SECRET: must be 1 to 256/);
    expect(problemsOf({ TELEGRAM_ALLOWED_CHAT_IDS: '12, abc' })).to.deep.equal([
      'TELEGRAM_ALLOWED_CHAT_IDS: "abc" is not a chat id (a whole number, negative for groups)',
    ]);
    // Chats are matched by the id as Telegram writes it: `0123` or `+123` would never match chat 123.
    expect(problemsOf({ TELEGRAM_ALLOWED_CHAT_IDS: '12, 0123, +123, -0100345, -100345' })).to.deep.equal([
      'TELEGRAM_ALLOWED_CHAT_IDS: "0123" is not a chat id as Telegram writes it (no plus sign, no leading zeros): write 123',
      'TELEGRAM_ALLOWED_CHAT_IDS: "+123" is not a chat id as Telegram writes it (no plus sign, no leading zeros): write 123',
      'TELEGRAM_ALLOWED_CHAT_IDS: "-0100345" is not a chat id as Telegram writes it (no plus sign, no leading zeros): write -100345',
    ]);
    expect(problemsOf({ MESSAGING_ALLOWED_CHAT_IDS: '007' })).to.deep.equal([
      'MESSAGING_ALLOWED_CHAT_IDS: "007" is not a chat id as Telegram writes it (no plus sign, no leading zeros): write 7',
    ]);
    expect(problemsOf({ TELEGRAM_APPROVAL_CHAT_ID: '+4242' })).to.deep.equal([
      'TELEGRAM_APPROVAL_CHAT_ID: "+4242" is not a chat id as Telegram writes it (no plus sign, no leading zeros): write 4242',
    ]);
    expect(problemsOf({ TELEGRAM_APPROVAL_CHAT_ID: 'abc' })).to.deep.equal([
      'TELEGRAM_APPROVAL_CHAT_ID: "abc" is not a chat id (a whole number, negative for groups)',
    ]);
    expect(problemsOf({ TELEGRAM_ALLOWED_CHAT_IDS: '0' })).to.deep.equal([
      'TELEGRAM_ALLOWED_CHAT_IDS: "0" is not a chat id (a whole number, negative for groups)',
    ]);
    const telegram = loadConfig({
      TELEGRAM_BOT_TOKEN: '1:a',
      TELEGRAM_WEBHOOK_SECRET: 's',
      TELEGRAM_API_URL: 'http://127.0.0.1:9/',
      TELEGRAM_ALLOWED_CHAT_IDS: '12, -100345',
    }).channels.telegram;
    expect(telegram).to.deep.include({ botToken: '1:a', webhookSecret: 's', apiUrl: 'http://127.0.0.1:9' });
    expect([...telegram.allowedChatIds]).to.deep.equal(['12', '-100345']);
  });

  describe('the former MESSAGING_* names of the Telegram variables', () => {
    it('are read when the TELEGRAM_* names are not set, and named in problems and hints', () => {
      expect(problemsOf({ MESSAGING_BOT_TOKEN: '123:abc' })).to.deep.equal([
        'MESSAGING_WEBHOOK_SECRET: required when MESSAGING_BOT_TOKEN is set (the webhook must be able to tell the platform from anyone else): set it, e.g. to the output of openssl rand -hex 32, or set MESSAGING_MODE=polling where the service has no public HTTPS address',
      ]);
      expect(problemsOf({ MESSAGING_WEBHOOK_SECRET: 'has space' })[0]).to.match(/^MESSAGING_WEBHOOK_SECRET: must be 1 to 256/);
      expect(problemsOf({ MESSAGING_ALLOWED_CHAT_IDS: '12, abc' })).to.deep.equal([
        'MESSAGING_ALLOWED_CHAT_IDS: "abc" is not a chat id (a whole number, negative for groups)',
      ]);
      const telegram = loadConfig({
        MESSAGING_BOT_TOKEN: '1:a',
        MESSAGING_WEBHOOK_SECRET: 's',
        MESSAGING_API_URL: 'http://127.0.0.1:9',
        MESSAGING_ALLOWED_CHAT_IDS: '12, -100345',
      }).channels.telegram;
      expect(telegram).to.deep.include({ botToken: '1:a', webhookSecret: 's', apiUrl: 'http://127.0.0.1:9' });
      expect([...telegram.allowedChatIds]).to.deep.equal(['12', '-100345']);
      expect(telegram.variables).to.deep.equal({
        botToken: 'MESSAGING_BOT_TOKEN',
        webhookSecret: 'MESSAGING_WEBHOOK_SECRET',
        allowedChats: 'MESSAGING_ALLOWED_CHAT_IDS',
        mode: 'MESSAGING_MODE',
        approvalChat: 'TELEGRAM_APPROVAL_CHAT_ID',
      });
    });

    it('read TRANSCRIBE_PROVIDER, TRANSCRIBE_MODEL and TRANSCRIBE_MAX_SIZE: only providers that transcribe, whisper-1 by default', () => {
      expect(loadConfig({}).transcription).to.equal(undefined);
      expect(loadConfig({ TRANSCRIBE_PROVIDER: 'openai' }).transcription).to.deep.equal({ provider: 'openai', model: 'whisper-1', maxBytes: 20 * 1024 * 1024 });
      expect(problemsOf({ TRANSCRIBE_PROVIDER: 'custom' })).to.deep.equal([
        "TRANSCRIBE_PROVIDER: custom needs LLM_BASE_URL or CUSTOM_BASE_URL (the server's /v1 URL)",
      ]);
      expect(loadConfig({ TRANSCRIBE_PROVIDER: 'custom', LLM_BASE_URL: 'http://127.0.0.1:9000/v1' }).transcription).to.include({ provider: 'custom' });
      const custom = {
        TRANSCRIBE_PROVIDER: 'custom',
        CUSTOM_BASE_URL: 'http://127.0.0.1:9000/v1',
        TRANSCRIBE_MODEL: 'whisper-large-v3',
        TRANSCRIBE_MAX_SIZE: '5mb',
      };
      expect(loadConfig(custom).transcription).to.deep.equal({
        provider: 'custom',
        model: 'whisper-large-v3',
        maxBytes: 5 * 1024 * 1024,
      });
      expect(() => loadConfig({ TRANSCRIBE_PROVIDER: 'anthropic' })).to.throw(ConfigError, 'TRANSCRIBE_PROVIDER: "anthropic" is not one of openai, custom');
      expect(() => loadConfig({ TRANSCRIBE_MAX_SIZE: 'lots' })).to.throw(ConfigError, 'TRANSCRIBE_MAX_SIZE');
    });

    it('read TELEGRAM_MODE (or MESSAGING_MODE): polling needs no webhook secret; anything but webhook or polling is refused', () => {
      expect(loadConfig({ TELEGRAM_BOT_TOKEN: '1:a', TELEGRAM_MODE: 'polling' }).channels.telegram).to.deep.include({
        mode: 'polling',
        webhookSecret: undefined,
      });
      expect(loadConfig({ MESSAGING_BOT_TOKEN: '1:a', MESSAGING_MODE: 'polling' }).channels.telegram.mode).to.equal('polling');
      expect(() => loadConfig({ TELEGRAM_MODE: 'push' })).to.throw(ConfigError, 'TELEGRAM_MODE: "push" is not one of webhook, polling');
      // A problem names the variable as set, also beside variables of the new names.
      expect(problemsOf({ TELEGRAM_BOT_TOKEN: '1:a', MESSAGING_MODE: 'poll' })).to.deep.equal(['MESSAGING_MODE: "poll" is not one of webhook, polling']);
      expect(() => loadConfig({ TELEGRAM_BOT_TOKEN: '1:a', TELEGRAM_MODE: 'webhook' })).to.throw(ConfigError, 'TELEGRAM_WEBHOOK_SECRET: required');
    });

    it('may be set together with the new name to the same value, or mixed with other new names', () => {
      const telegram = loadConfig({ TELEGRAM_BOT_TOKEN: '1:a', MESSAGING_BOT_TOKEN: ' 1:a ', MESSAGING_WEBHOOK_SECRET: 's' }).channels.telegram;
      expect(telegram).to.deep.include({ botToken: '1:a', webhookSecret: 's' });
      expect(telegram.variables.botToken).to.equal('TELEGRAM_BOT_TOKEN');
    });

    it('set to another value than the new name is a problem naming both', () => {
      expect(problemsOf({ TELEGRAM_BOT_TOKEN: '1:a', MESSAGING_BOT_TOKEN: '2:b', TELEGRAM_WEBHOOK_SECRET: 's' })).to.deep.equal([
        'TELEGRAM_BOT_TOKEN: set to a different value than MESSAGING_BOT_TOKEN (its former name): set one of them',
      ]);
      expect(problemsOf({ TELEGRAM_ALLOWED_CHAT_IDS: '1', MESSAGING_ALLOWED_CHAT_IDS: '2' })).to.deep.equal([
        'TELEGRAM_ALLOWED_CHAT_IDS: set to a different value than MESSAGING_ALLOWED_CHAT_IDS (its former name): set one of them',
      ]);
    });
  });

  it('puts all problems in the error message, one per line', () => {
    try {
      loadConfig({ PORT: 'x', LOG_LEVEL: 'y' });
      expect.fail('expected a ConfigError');
    } catch (error) {
      expect((error as Error).message).to.equal(
        'Invalid configuration:\n  - PORT: "x" is not a whole number between 0 and 65535\n  - LOG_LEVEL: "y" is not one of fatal, error, warn, info, debug, trace, silent',
      );
    }
  });
});

describe('parseSize', () => {
  it('reads bytes and binary units', () => {
    expect(parseSize('100')).to.equal(100);
    expect(parseSize('1kb')).to.equal(1024);
    expect(parseSize('2 MiB')).to.equal(2 * 1024 * 1024);
    expect(parseSize('1.5mb')).to.equal(undefined);
  });
});
