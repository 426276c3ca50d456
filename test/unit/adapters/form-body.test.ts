import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import Koa from 'koa';
import { rawBodyOf } from '../../../src/adapters/http/middleware/body-stream.js';
import { formBody, MAX_FORM_FIELDS, parseForm } from '../../../src/adapters/http/middleware/form-body.js';
import { requestLog } from '../../../src/adapters/http/middleware/request-log.js';
import { pino } from 'pino';
import { bytesOf, postRaw } from '../../support/raw-http.js';

const LIMIT = 256;

interface Answer {
  readonly status: number;
  readonly body: { error?: string; form?: unknown; bytes?: string };
}

const send = (port: number, path: string, headers: Record<string, string>, payload: Buffer): Promise<Answer> =>
  postRaw<Answer['body']>(port, path, headers, payload);

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('parseForm', () => {
  it('takes fields flat, as a browser sends them: + is a space, repeated names give every value, names as they are', () => {
    expect(parseForm('name=a+b%20c&tag=1&tag=2&tag=3&a[b]=x&a.b=y&empty=&bare&&=nameless')).to.deep.equal({
      name: 'a b c',
      tag: ['1', '2', '3'],
      'a[b]': 'x',
      'a.b': 'y',
      empty: '',
      bare: '',
    });
  });

  it('takes a field sent as often as a form may have fields, every value kept, and refuses one more field with a 400 naming the limit', () => {
    const form = parseForm(`${'a=&'.repeat(MAX_FORM_FIELDS - 1)}a=last`);
    expect(form.a).to.have.length(MAX_FORM_FIELDS);
    expect((form.a as readonly string[])[MAX_FORM_FIELDS - 1]).to.equal('last');
    // A hostile body (the admin's login form is parsed before anyone is signed in) ends at the limit, whatever its size.
    for (const body of [
      `${'a=&'.repeat(MAX_FORM_FIELDS)}a=`,
      'k=&'.repeat(300_000),
      Array.from({ length: MAX_FORM_FIELDS + 1 }, (_, i) => `k${i}=v`).join('&'),
    ]) {
      expect(() => parseForm(body))
        .to.throw(`Invalid form body: more than ${MAX_FORM_FIELDS} fields`)
        .with.property('code', 'invalid_input');
    }
  });

  it('keeps every name, also those of Object.prototype, as fields of their own', () => {
    const form = parseForm('__proto__=p&toString=t&constructor=c');
    expect(Object.getPrototypeOf(form)).to.equal(Object.prototype);
    expect(Object.keys(form)).to.deep.equal(['__proto__', 'toString', 'constructor']);
    expect(form.toString).to.equal('t');
  });

  it('decodes percent-encoded UTF-8, and keeps a % that starts no escape as it is (as a browser does)', () => {
    expect(parseForm('text=%C3%A9%F0%9F%98%80&rate=100%&odd=%zz%4')).to.deep.equal({ text: 'é😀', rate: '100%', odd: '%zz%4' });
    expect(parseForm('mixed=100%25+%C3%A9+50%')).to.deep.equal({ mixed: '100% é 50%' });
  });

  it('refuses a name or value whose percent-encoded bytes are not UTF-8, naming the field', () => {
    const refused = (text: string): string => {
      try {
        parseForm(text);
      } catch (error) {
        return (error as Error).message;
      }
      return expect.fail(`${text} was taken`);
    };
    expect(refused('name=%ff')).to.equal('Invalid form body: the value of field "name" is not valid UTF-8 once percent-decoded');
    expect(refused('%ff=1')).to.equal('Invalid form body: the field name "%ff" is not valid UTF-8 once percent-decoded');
    expect(refused('ok=1&name=%ED%A0%BD')).to.equal('Invalid form body: the value of field "name" is not valid UTF-8 once percent-decoded');
    expect(refused('path=%C0%AF')).to.equal('Invalid form body: the value of field "path" is not valid UTF-8 once percent-decoded');
    expect(refused('cut=%E2%82')).to.equal('Invalid form body: the value of field "cut" is not valid UTF-8 once percent-decoded');
    expect(refused('cut=%E0%A4%A')).to.equal('Invalid form body: the value of field "cut" is not valid UTF-8 once percent-decoded');
    expect(refused('latin1=r%E9sum%E9')).to.equal('Invalid form body: the value of field "latin1" is not valid UTF-8 once percent-decoded');
    expect(refused(`${'n'.repeat(300)}%ff=1`)).to.equal(`Invalid form body: the field name "${'n'.repeat(100)}…" is not valid UTF-8 once percent-decoded`);
  });
});

describe('formBody middleware (Koa on a loopback server)', () => {
  let server: Server;
  let port: number;

  before(async () => {
    const app = new Koa();
    app.use(requestLog(pino({ level: 'silent' })));
    app.use(formBody(LIMIT));
    app.use((ctx) => {
      ctx.body = { form: ctx.request.body ?? null, bytes: rawBodyOf(ctx).toString('hex') };
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('parses a form and keeps its exact bytes', async () => {
    const payload = bytesOf('csrf=t&name=caf%C3%A9+bar');
    const answer = await send(port, '/', FORM, payload);
    expect(answer).to.deep.equal({ status: 200, body: { form: { csrf: 't', name: 'café bar' }, bytes: payload.toString('hex') } });
  });

  it('answers 400 naming the field for a percent-encoding that is not UTF-8, where a key named "%ff" used to be made', async () => {
    expect(await send(port, '/', FORM, bytesOf('csrf=t&name=%ff'))).to.deep.equal({
      status: 400,
      body: { error: 'Invalid form body: the value of field "name" is not valid UTF-8 once percent-decoded' },
    });
    expect(await send(port, '/', FORM, bytesOf('%ff=1'))).to.deep.equal({
      status: 400,
      body: { error: 'Invalid form body: the field name "%ff" is not valid UTF-8 once percent-decoded' },
    });
  });

  it('answers 400 for raw bytes that are not UTF-8, also once decompressed', async () => {
    const latin1 = bytesOf('name=r', [0xe9], 'sum', [0xe9]);
    const error = { status: 400, body: { error: 'Invalid form body: not valid UTF-8 at byte offset 6' } };
    expect(await send(port, '/', FORM, latin1)).to.deep.equal(error);
    expect(await send(port, '/', { ...FORM, 'content-encoding': 'gzip' }, gzipSync(latin1))).to.deep.equal(error);
  });

  it('takes a charset that means UTF-8 and refuses another with a 415 naming it', async () => {
    for (const charset of ['UTF-8', '"utf-8"', 'utf8']) {
      const answer = await send(port, '/', { 'content-type': `application/x-www-form-urlencoded; charset=${charset}` }, bytesOf('a=%C3%A9'));
      expect(answer.body.form, charset).to.deep.equal({ a: 'é' });
    }
    for (const charset of ['latin1', 'ISO-8859-1', 'utf-16le']) {
      const answer = await send(port, '/', { 'content-type': `application/x-www-form-urlencoded; charset=${charset}` }, bytesOf('a=%E9'));
      expect(answer, charset).to.deep.equal({ status: 415, body: { error: `Unsupported charset ${charset}: send the form as UTF-8` } });
    }
  });
});
