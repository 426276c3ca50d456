import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import Koa from 'koa';
import { pino } from 'pino';
import { rawBodyOf } from '../../../src/adapters/http/middleware/body-stream.js';
import { requestLog } from '../../../src/adapters/http/middleware/request-log.js';
import { parseOnce, parserOf, signedBody } from '../../../src/adapters/http/middleware/signed-body.js';
import { bytesOf, postRaw } from '../../support/raw-http.js';

const LIMIT = 256;

interface Answer {
  readonly status: number;
  readonly body: { error?: string; before?: unknown; bytes?: string; parsed?: unknown; after?: unknown };
}

const send = (port: number, path: string, headers: Record<string, string>, payload: Buffer): Promise<Answer> =>
  postRaw<Answer['body']>(port, path, headers, payload);

const JSON_TYPE = { 'content-type': 'application/json' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/**
 * A route like a signed webhook's: `/verified…` stands for a request whose signature checked out
 * (its handler parses the body), `/refused…` for one that did not (its handler never does);
 * `…-forms` routes also take forms.
 */
describe('signedBody middleware (Koa on a loopback server)', () => {
  let server: Server;
  let port: number;

  before(async () => {
    const app = new Koa();
    app.silent = true;
    app.use(requestLog(pino({ level: 'silent' })));
    const jsonOnly = signedBody(LIMIT);
    const withForms = signedBody(LIMIT, { forms: true });
    app.use((ctx, next) => (ctx.path.endsWith('-forms') ? withForms(ctx, next) : jsonOnly(ctx, next)));
    app.use((ctx) => {
      const before = ctx.request.body ?? null;
      const bytes = rawBodyOf(ctx).toString('hex');
      if (ctx.path.startsWith('/refused')) {
        ctx.status = 401;
        ctx.body = { error: 'Unauthorized', before, bytes };
        return;
      }
      const parsed = parserOf(ctx)();
      ctx.body = { before, bytes, parsed: parsed ?? null, after: ctx.request.body ?? null };
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('keeps the exact bytes and parses nothing until the request is verified; then the value is also the request body', async () => {
    const payload = bytesOf('{"a": [1, "é"]}');
    expect(await send(port, '/verified', JSON_TYPE, payload)).to.deep.equal({
      status: 200,
      body: { before: null, bytes: payload.toString('hex'), parsed: { a: [1, 'é'] }, after: { a: [1, 'é'] } },
    });
    const form = bytesOf('payload=%7B%22type%22%3A%22block_actions%22%7D');
    expect(await send(port, '/verified-forms', FORM, form)).to.deep.equal({
      status: 200,
      body: { before: null, bytes: form.toString('hex'), parsed: { payload: '{"type":"block_actions"}' }, after: { payload: '{"type":"block_actions"}' } },
    });
  });

  it('lets an unverified caller have its refusal whatever its body holds: nothing is decoded or parsed for it', async () => {
    const hostile = [
      [JSON_TYPE, bytesOf('{"a":')],
      [JSON_TYPE, bytesOf('{"__proto__": {"admin": true}}')],
      [JSON_TYPE, bytesOf('{"name": "r', [0xe9], 'sum"}')],
      [JSON_TYPE, bytesOf('['.repeat(200))],
      [{ 'content-type': 'application/json; charset=iso-8859-1' }, bytesOf('{"n":"', [0xe9], '"}')],
      [FORM, bytesOf('a=%ff&b=', [0xff])],
      [FORM, bytesOf('k=&'.repeat(80))],
    ] as const;
    for (const [headers, payload] of hostile) {
      const path = headers['content-type'].startsWith('application/x-www') ? '/refused-forms' : '/refused';
      expect(await send(port, path, headers, payload), payload.toString('latin1')).to.deep.equal({
        status: 401,
        body: { error: 'Unauthorized', before: null, bytes: payload.toString('hex') },
      });
    }
  });

  it('answers 400 for a body that cannot be taken only when a verified request parses it', async () => {
    expect(await send(port, '/verified', JSON_TYPE, bytesOf('{"a":'))).to.deep.equal({
      status: 400,
      body: { error: 'Invalid JSON body: unexpected end of the body at line 1 column 6' },
    });
    expect(await send(port, '/verified', JSON_TYPE, bytesOf('{"__proto__": {"admin": true}}'))).to.deep.equal({
      status: 400,
      body: { error: 'Invalid JSON body: a "__proto__" key is not allowed' },
    });
    expect(await send(port, '/verified', JSON_TYPE, bytesOf('{"n":"r', [0xe9], '"}'))).to.deep.equal({
      status: 400,
      body: { error: 'Invalid JSON body: not valid UTF-8 at byte offset 7' },
    });
    expect(await send(port, '/verified-forms', FORM, bytesOf('payload=', [0xff]))).to.deep.equal({
      status: 400,
      body: { error: 'Invalid form body: not valid UTF-8 at byte offset 8' },
    });
    expect(await send(port, '/verified-forms', FORM, bytesOf('a=%ff'))).to.deep.equal({
      status: 400,
      body: { error: 'Invalid form body: the value of field "a" is not valid UTF-8 once percent-decoded' },
    });
    const latin1 = await send(port, '/verified', { 'content-type': 'application/json; charset=iso-8859-1' }, bytesOf('{"n":"', [0xe9], '"}'));
    expect(latin1.status).to.equal(415);
    // plain ASCII under an ASCII-compatible label is taken
    const ascii = await send(port, '/verified', { 'content-type': 'application/json; charset=iso-8859-1' }, bytesOf('{"n":"x"}'));
    expect(ascii.body.parsed).to.deep.equal({ n: 'x' });
  });

  it('still answers what the headers tell before reading: 415 for a type the route does not take, 413 over the limit, also once decompressed', async () => {
    expect(await send(port, '/refused', FORM, bytesOf('a=1'))).to.deep.equal({ status: 415, body: { error: 'Content-Type must be application/json' } });
    expect(await send(port, '/refused-forms', { 'content-type': 'text/plain' }, bytesOf('a'))).to.deep.equal({
      status: 415,
      body: { error: 'Content-Type must be application/json or application/x-www-form-urlencoded' },
    });
    expect((await send(port, '/refused-forms', { 'content-type': 'application/x-www-form-urlencoded; charset=latin1' }, bytesOf('a=1'))).status).to.equal(415);
    expect((await send(port, '/refused', JSON_TYPE, bytesOf(`"${'x'.repeat(LIMIT)}"`))).status).to.equal(413);
    const inflating = gzipSync(bytesOf(`"${'x'.repeat(LIMIT * 4)}"`));
    expect(inflating.length).to.be.below(LIMIT);
    expect((await send(port, '/refused', { ...JSON_TYPE, 'content-encoding': 'gzip' }, inflating)).status).to.equal(413);
  });

  it('gives a request without a body empty bytes and no value', async () => {
    expect(await send(port, '/verified', {}, Buffer.alloc(0))).to.deep.equal({ status: 200, body: { before: null, bytes: '', parsed: null, after: null } });
  });
});

describe('parseOnce', () => {
  it('parses at the first call only: later calls give the same value, or throw the same failure', () => {
    let calls = 0;
    const value = { a: 1 };
    const ok = parseOnce(() => {
      calls++;
      return value;
    });
    expect(ok()).to.equal(value);
    expect(ok()).to.equal(value);
    expect(calls).to.equal(1);
    const failing = parseOnce(() => {
      calls++;
      throw new Error(`failure ${calls}`);
    });
    expect(failing).to.throw('failure 2');
    expect(failing).to.throw('failure 2');
    expect(calls).to.equal(2);
  });
});
