import { expect } from 'chai';
import { AI_PROVIDERS } from '../../../src/adapters/ai/ai-providers.js';
import { EnvironmentSecretStore } from '../../../src/adapters/secrets/environment-secret-store.js';
import { redactSecrets } from '../../../src/domain/jobs/redact-secrets.js';

/*
 * An agent runs as the service's user: it never gets the service's credentials, but it can read
 * the service's environment (/proc/<pid>/environ, the .env file). What it prints of them — into
 * the job's log and summary, which are stored, committed and shown in chat — is redacted.
 */
describe('EnvironmentSecretStore: the service’s own credentials are redacted from what jobs print', () => {
  const env = {
    PATH: '/usr/bin:/bin',
    PORT: '3000',
    TELEGRAM_BOT_TOKEN: '123456:MAIN-env-token-abcdef',
    TELEGRAM_WEBHOOK_SECRET: 'attack-webhook-secret-1',
    SLACK_SIGNING_SECRET: 'slack-signing-0123',
    CODEHOST_WEBHOOK_SECRET: 'codehost-WEBHOOKSECRET',
    CODEHOST_TOKEN: 'ghp_codehosttoken',
    ADMIN_PASSWORD: 'adminpassSECRET1',
    METRICS_TOKEN: 'metrics-token-9',
    DISCORD_BOT_TOKEN: 'a-future-channel-token',
    DATABASE_URL: 'postgres://agw:p%40ss-word-42@db:5432/agw',
    PGPASSWORD: 'pg-password-from-env',
    REDIS_URL: 'redis://:redis-password-123@cache:6379?password=query-password-456',
    POSTGRES_PASSWORD: 'postgres',
    SORT_KEY: 'date',
    OPENAI_API_KEY: 'sk-openai-9999',
    AGENT_LLM_SEARCH_KEY: 'offered-3b9d',
    AGENT_DEPLOY_TOKEN: 'hidden-7c1e',
    EMPTY_TOKEN: '',
  };
  const store = new EnvironmentSecretStore(env, AI_PROVIDERS);

  it('redacts every credential the service was started with, the database password too, from a dump of its environment', () => {
    const dump = Object.entries(env)
      .map(([name, value]) => `${name}=${value}`)
      .join('\n');
    const shown = redactSecrets(dump, store.redactedSecrets());
    for (const name of [
      'TELEGRAM_BOT_TOKEN',
      'TELEGRAM_WEBHOOK_SECRET',
      'SLACK_SIGNING_SECRET',
      'CODEHOST_WEBHOOK_SECRET',
      'CODEHOST_TOKEN',
      'ADMIN_PASSWORD',
      'METRICS_TOKEN',
      'DISCORD_BOT_TOKEN',
      'OPENAI_API_KEY',
      'AGENT_DEPLOY_TOKEN',
    ] as const) {
      expect(shown, name).to.include(`${name}=[redacted ${name}]`);
      expect(shown, name).not.to.include(env[name]);
    }
    expect(shown).to.include('DATABASE_URL=postgres://agw:[redacted DATABASE_URL password]@db:5432/agw');
    expect(redactSecrets('connecting with p@ss-word-42', store.redactedSecrets())).to.equal('connecting with [redacted DATABASE_URL password]');
    expect(redactSecrets('auth redis-password-123 then query-password-456', store.redactedSecrets())).to.equal(
      'auth [redacted REDIS_URL password] then [redacted REDIS_URL password]',
    );
  });

  it('leaves what is no credential, short values named like one, and the AGENT_LLM_* values the model may read, as they are', () => {
    // None is redacted wherever it appears (a short credential only in its context).
    const values = store
      .redactedSecrets()
      .filter((secret) => secret.context === undefined)
      .map((secret) => secret.value);
    for (const kept of ['/usr/bin:/bin', '3000', 'offered-3b9d', '', 'postgres', 'date']) expect(values).not.to.include(kept);
    expect(redactSecrets('sorted by date', store.redactedSecrets())).to.equal('sorted by date');
    // A compose file the agent reads and writes back keeps its words.
    expect(redactSecrets('image: postgres:16 # sorted by date', store.redactedSecrets())).to.equal('image: postgres:16 # sorted by date');
    // The provider key is named once, by the provider registry's entry.
    expect(store.redactedSecrets().filter((secret) => secret.value === 'sk-openai-9999')).to.have.length(1);
  });

  it('redacts a short URL password where it stands in its URL, and a short credential where it is assigned, not the word elsewhere', () => {
    const short = new EnvironmentSecretStore(
      { DATABASE_URL: 'postgres://app:s3cr3t@db/app', CACHE_URL: 'redis://cache?password=pw%2B1', PGPASSWORD: 'hunter2', POSTGRES_PASSWORD: 'postgres' },
      AI_PROVIDERS,
    );
    const redact = (text: string): string => redactSecrets(text, short.redactedSecrets());
    expect(redact('connecting to postgres://app:s3cr3t@db/app failed')).to.equal('connecting to postgres://app:[redacted DATABASE_URL password]@db/app failed');
    expect(redact('DATABASE_URL=postgres://app:s3cr3t@db/app')).not.to.contain('s3cr3t');
    expect(redact('url=redis://cache?password=pw%2B1 / pw+1: host=cache password=pw+1')).not.to.match(/pw%2B1|password=pw\+1/);
    const dump = 'PGPASSWORD=hunter2\0POSTGRES_PASSWORD=postgres\0PGPASSWORD="hunter2"\n';
    expect(redact(dump)).to.equal('PGPASSWORD=[redacted PGPASSWORD]\0POSTGRES_PASSWORD=[redacted POSTGRES_PASSWORD]\0PGPASSWORD="[redacted PGPASSWORD]"\n');
    // The same short values as words: kept.
    expect(redact('image: postgres:16 # user app, table s3cr3t, hunter2')).to.equal('image: postgres:16 # user app, table s3cr3t, hunter2');
  });

  it('redacts a short credential assigned in JSON or YAML, the value only', () => {
    const short = new EnvironmentSecretStore({ PGPASSWORD: 'hunter2', POSTGRES_PASSWORD: 'postgres' }, AI_PROVIDERS);
    const redact = (text: string): string => redactSecrets(text, short.redactedSecrets());
    expect(redact('{"PGPASSWORD": "hunter2", "POSTGRES_PASSWORD":"postgres"}')).to.equal(
      '{"PGPASSWORD": "[redacted PGPASSWORD]", "POSTGRES_PASSWORD":"[redacted POSTGRES_PASSWORD]"}',
    );
    expect(redact('environment:\n  POSTGRES_PASSWORD: postgres\n  PGPASSWORD: "hunter2"\nimage: postgres:16')).to.equal(
      'environment:\n  POSTGRES_PASSWORD: [redacted POSTGRES_PASSWORD]\n  PGPASSWORD: "[redacted PGPASSWORD]"\nimage: postgres:16',
    );
  });

  it('leaves ordinary text that shares a piece of a short credential’s context as it is: only the whole context with the value is redacted', () => {
    const short = new EnvironmentSecretStore({ DATABASE_URL: 'postgres://postgres:postgres@db/app', POSTGRES_PASSWORD: 'postgres' }, AI_PROVIDERS);
    const redact = (text: string): string => redactSecrets(text, short.redactedSecrets());
    for (const text of [
      'All tests pass',
      'Make the tests pass',
      'the login form hashes the password',
      'the bypass',
      'handled the POST',
      'password',
      'POSTGRES_PASS',
      'image: postgres:16',
      'gres and more',
    ]) {
      expect(redact(text), text).to.equal(text);
    }
    expect(redact('postgres://postgres:postgres@db')).to.equal('postgres://postgres:[redacted DATABASE_URL password]@db');
    expect(redact('DATABASE_URL=postgres://postgres:postgres@db/app')).to.equal('DATABASE_URL=postgres://postgres:[redacted DATABASE_URL password]@db/app');
  });

  it('hides a short credential cut off at the end or beginning of the output only where its whole context stands beside it', () => {
    const short = new EnvironmentSecretStore({ DATABASE_URL: 'postgres://app:s3cr3t@db/app', PGPASSWORD: 'hunter2' }, AI_PROVIDERS);
    const redact = (text: string): string => redactSecrets(text, short.redactedSecrets());
    expect(redact('log… PGPASSWORD=hunt')).to.equal('log… PGPASSWORD=[redacted PGPASSWORD]');
    expect(redact('log… postgres://app:s3cr')).to.equal('log… postgres://app:[redacted DATABASE_URL password]');
    expect(redact('cr3t@db/app then more')).to.equal('[redacted DATABASE_URL password]@db/app then more');
    // Without the whole context, or under 4 characters of the value beside a URL's `:`: kept.
    expect(redact('we hunt')).to.equal('we hunt');
    expect(redact('log… postgres://app:s3c')).to.equal('log… postgres://app:s3c');
    expect(redact('cr3t and more')).to.equal('cr3t and more');
  });

  it('hides a short credential cut off after its whole assignment from its first character on', () => {
    const short = new EnvironmentSecretStore({ DATABASE_URL: 'postgres://app:s3cr3t@db/app', PGPASSWORD: 'hunter2' }, AI_PROVIDERS);
    const redact = (text: string): string => redactSecrets(text, short.redactedSecrets());
    expect(redact('log… PGPASSWORD=hun')).to.equal('log… PGPASSWORD=[redacted PGPASSWORD]');
    expect(redact('log… PGPASSWORD=h')).to.equal('log… PGPASSWORD=[redacted PGPASSWORD]');
    expect(redact("log… {'PGPASSWORD': 'hu")).to.equal("log… {'PGPASSWORD': '[redacted PGPASSWORD]");
    expect(redact('log… "password": "s3')).to.equal('log… "password": "[redacted DATABASE_URL password]');
    // Not a beginning of the value, or no value yet: kept.
    expect(redact('log… PGPASSWORD=x')).to.equal('log… PGPASSWORD=x');
    expect(redact('log… PGPASSWORD=')).to.equal('log… PGPASSWORD=');
  });

  it('redacts a short credential in every common dump form of an assignment, the value only', () => {
    const short = new EnvironmentSecretStore({ DATABASE_URL: 'postgres://app:s3cr3t@db/app', PGPASSWORD: 's3cr3t' }, AI_PROVIDERS);
    const redact = (text: string): string => redactSecrets(text, short.redactedSecrets());
    const forms: [string, string][] = [
      // Python print(os.environ)
      ["environ({'HOME': '/root', 'PGPASSWORD': 's3cr3t', 'X': 'y'})", "environ({'HOME': '/root', 'PGPASSWORD': '[redacted PGPASSWORD]', 'X': 'y'})"],
      // Ruby ENV.to_h.inspect, old and new hash syntax
      ['{"PGPASSWORD"=>"s3cr3t"}', '{"PGPASSWORD"=>"[redacted PGPASSWORD]"}'],
      ['{"PGPASSWORD" => "s3cr3t"}', '{"PGPASSWORD" => "[redacted PGPASSWORD]"}'],
      // INI, TOML
      ['[db]\nPGPASSWORD = s3cr3t\n', '[db]\nPGPASSWORD = [redacted PGPASSWORD]\n'],
      ['PGPASSWORD = "s3cr3t"', 'PGPASSWORD = "[redacted PGPASSWORD]"'],
      // tabs around the separator
      ['PGPASSWORD\t=\ts3cr3t', 'PGPASSWORD\t=\t[redacted PGPASSWORD]'],
      ["PGPASSWORD:\t's3cr3t'", "PGPASSWORD:\t'[redacted PGPASSWORD]'"],
      // the URL's password as a YAML or JSON field, a TOML key, a query parameter
      ['database:\n  password: s3cr3t\n  host: db', 'database:\n  password: [redacted DATABASE_URL password]\n  host: db'],
      ['{"user": "app", "password": "s3cr3t"}', '{"user": "app", "password": "[redacted DATABASE_URL password]"}'],
      ["db_password = 's3cr3t'", "db_password = '[redacted DATABASE_URL password]'"],
      ['Password: s3cr3t', 'Password: [redacted DATABASE_URL password]'],
      ['redis://cache?password=s3cr3t&db=0', 'redis://cache?password=[redacted DATABASE_URL password]&db=0'],
    ];
    for (const [text, redacted] of forms) expect(redact(text), text).to.equal(redacted);
  });

  it('leaves ordinary text as it is where a short credential’s name or value appears without an assignment', () => {
    const short = new EnvironmentSecretStore(
      { DATABASE_URL: 'postgres://postgres:postgres@db/app', POSTGRES_PASSWORD: 'postgres', PGPASSWORD: 'pass' },
      AI_PROVIDERS,
    );
    const redact = (text: string): string => redactSecrets(text, short.redactedSecrets());
    for (const text of [
      'All tests pass',
      'the password',
      'the password is checked',
      'handled the POST',
      'image: postgres:16',
      'services:\n  db:\n    image: postgres:16\n    user: postgres',
      'PGPASSWORD is set; pass it on',
      'password: see the vault',
      "{'PGPASSWORD': 'other'}",
    ]) {
      expect(redact(text), text).to.equal(text);
    }
  });

  it('measures a credential trimmed and looks for it as measured: surrounding whitespace neither makes a short one long nor hides a long one', () => {
    const padded = new EnvironmentSecretStore({ METRICS_TOKEN: '  metrics-token-9f3a\n', POSTGRES_PASSWORD: '   postgres    ' }, AI_PROVIDERS);
    expect(padded.redactedSecrets().filter((secret) => secret.name === 'METRICS_TOKEN')).to.deep.equal([
      { name: 'METRICS_TOKEN', value: 'metrics-token-9f3a' },
    ]);
    expect(redactSecrets('token=metrics-token-9f3a;', padded.redactedSecrets())).to.equal('token=[redacted METRICS_TOKEN];');
    expect(redactSecrets('image: postgres:16', padded.redactedSecrets())).to.equal('image: postgres:16');
  });

  it('gives a job none of them: the service’s credentials are redacted, never passed on', () => {
    expect(store.agentVariables().map((variable) => variable.name)).to.deep.equal(['AGENT_DEPLOY_TOKEN', 'AGENT_LLM_SEARCH_KEY']);
  });
});
