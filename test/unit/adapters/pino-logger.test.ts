import { DriverException } from '@mikro-orm/core';
import { PglitePlatform } from '@mikro-orm/pglite';
import { expect } from 'chai';
import { createPino, PinoLogger } from '../../../src/adapters/logging/pino-logger.js';

const SECRET = '123456:TOKEN-IN-CLEAR';
const STATEMENT = `insert into "settings" ("key", "value") values ('messaging.bot_token', '${SECRET}')`;

/** PGlite's error for a failed statement: PostgreSQL's fields, and the statement with its values. */
const pgliteError = (): Error =>
  Object.assign(new Error('duplicate key value violates unique constraint "settings_pkey"'), {
    code: '23505',
    constraint: 'settings_pkey',
    table: 'settings',
    detail: `Key (value)=(${SECRET}) already exists.`,
    where: `SQL statement "${STATEMENT}"`,
    internalQuery: STATEMENT,
    query: STATEMENT,
    params: ['messaging.bot_token', SECRET],
    queryOptions: { rowMode: 'object' },
  });

const capture = (): { logger: PinoLogger; lines: () => Record<string, unknown>[]; text: () => string } => {
  const written: string[] = [];
  const logger = new PinoLogger(createPino('debug', { write: (line: string) => void written.push(line) }));
  return { logger, lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>), text: () => written.join('') };
};

describe('the service logger and the errors it prints', () => {
  it('prints a database error MikroORM raised without the failed statement or its values, keeping what tells what went wrong', () => {
    const { logger, lines, text } = capture();
    // As MikroORM raises it: its exception copies every field of the driver's error, the
    // statement among them, and writes PostgreSQL's detail into its message.
    const error = new PglitePlatform().getExceptionConverter().convertException(pgliteError());
    expect((error as unknown as { query: string }).query).to.include(SECRET);
    expect(error.message).to.include(SECRET);
    logger.error({ err: error, channel: 'telegram' }, 'could not store the bot token');

    expect(text()).to.not.include(SECRET);
    const [line] = lines();
    expect(line).to.include({ msg: 'could not store the bot token', channel: 'telegram' });
    const err = line.err as Record<string, unknown>;
    expect(err).to.include({ type: 'UniqueConstraintViolationException', code: '23505', constraint: 'settings_pkey', table: 'settings' });
    expect(err.message).to.equal('duplicate key value violates unique constraint "settings_pkey"\n - detail: [hidden]');
    expect(err.stack).to.match(
      /^UniqueConstraintViolationException: duplicate key value violates unique constraint "settings_pkey"\n - detail: \[hidden\]\n +at /,
    );
    expect(err).to.not.have.any.keys('query', 'sql', 'params', 'parameters', 'values', 'detail', 'where', 'internalQuery', 'queryOptions');
  });

  it('writes a cause’s message once: not again after a message that already quotes it (the AI SDK’s errors)', () => {
    const { logger, lines } = capture();
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:1');
    const sdk = new Error(`Cannot connect to API: ${refused.message}`, { cause: refused });
    const failed = new Error(`The custom model call failed: ${sdk.message}`, { cause: sdk });
    logger.error({ err: failed }, 'AI call failed');
    logger.error({ err: new Error('could not register the webhook', { cause: new Error('getaddrinfo ENOTFOUND api.telegram.org') }) }, 'x');
    const [ai, other] = lines().map((line) => (line.err as Record<string, unknown>).message);
    expect(ai).to.equal('The custom model call failed: Cannot connect to API: connect ECONNREFUSED 127.0.0.1:1');
    // A cause the message does not quote is still appended, as pino does.
    expect(other).to.equal('could not register the webhook: getaddrinfo ENOTFOUND api.telegram.org');
  });

  it('still appends a cause that is no Error but has a message, as pino does (a copied error)', () => {
    const { logger, lines } = capture();
    logger.error({ err: new Error('could not send', { cause: { message: 'socket hang up', code: 'ECONNRESET' } }) }, 'x');
    expect((lines()[0]!.err as Record<string, unknown>).message).to.equal('could not send: socket hang up');
  });

  it('leaves the statement out of the causes, of errors held in fields, and of an error logged alone', () => {
    const { logger, lines, text } = capture();
    const wrapped = new Error('could not register the webhook', { cause: new DriverException(pgliteError()) });
    const held = Object.assign(new Error('migration failed'), {
      failed: new DriverException(pgliteError()),
      context: { sql: STATEMENT, parameters: [SECRET], values: [SECRET], bindings: [SECRET], step: 3 },
    });
    logger.warn({ err: wrapped }, 'one');
    logger.warn({ err: held }, 'two');
    logger.pino.error(new DriverException(pgliteError()), 'three');

    expect(text()).to.not.include(SECRET);
    const [one, two, three] = lines().map((line) => line.err as Record<string, unknown>);
    expect(one.message).to.equal('could not register the webhook: duplicate key value violates unique constraint "settings_pkey"');
    expect(one.stack).to.include('caused by: DriverException: duplicate key');
    expect(two.failed).to.include({ type: 'DriverException', code: '23505' });
    expect(two.context).to.deep.equal({ step: 3 });
    expect(three).to.include({ type: 'DriverException', code: '23505' });
  });

  it("leaves a log line's own fields, and the logged error itself, as they were", () => {
    const { logger, lines } = capture();
    const error = Object.assign(new Error('failed'), { context: { values: [1, 2] } });
    logger.info({ query: 'status=open', values: [1, 2], err: error }, 'listed');
    expect(lines()[0]).to.deep.include({ query: 'status=open', values: [1, 2] });
    expect(error.context).to.deep.equal({ values: [1, 2] });
    logger.info({ err: 'not an error' }, 'text');
    expect(lines()[1].err).to.equal('not an error');
  });
});
