import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import Koa from 'koa';
import { pino } from 'pino';
import nock from 'nock';
import { requestLog } from '../../../src/adapters/http/middleware/request-log.js';
import { rawBodyOf } from '../../../src/adapters/http/middleware/body-stream.js';
import { jsonBody } from '../../../src/adapters/http/middleware/json-body.js';

const LIMIT = 64;

interface Answer {
  readonly status: number;
  readonly body: { error?: string; body?: unknown; bytes?: string; type?: string };
}

/**
 * One HTTP request written by hand on a TCP socket (chunked when `chunks` is given), so every
 * header and byte is exactly what the test says, and no HTTP client (or nock, which other
 * test files activate) rewrites or inspects the body on the way.
 */
const send = (port: number, headers: Record<string, string>, payload?: Buffer | string, chunks?: readonly string[]): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(received).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: Number(text.slice(9, 12)), body: JSON.parse(text.slice(split + 4)) });
    });
    const head = Object.entries({ host: `127.0.0.1:${port}`, connection: 'close', ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`POST / HTTP/1.1\r\n${head}\r\n`);
    if (chunks) {
      for (const chunk of chunks) socket.write(`${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`);
      socket.write('0\r\n\r\n');
    } else if (payload !== undefined) socket.write(payload);
  });

const json = (text: string, extra: Record<string, string> = {}): [Record<string, string>, string] => [
  { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...extra },
  text,
];

/** A body of these exact bytes, declared `application/json` unless `extra` says otherwise. */
const jsonBytes = (payload: Buffer, extra: Record<string, string> = {}): [Record<string, string>, Buffer] => [
  { 'content-type': 'application/json', 'content-length': String(payload.length), ...extra },
  payload,
];

/** `parts` joined: strings as UTF-8, numbers as single bytes. */
const bytesOf = (...parts: ReadonlyArray<string | readonly number[]>): Buffer =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));

describe('jsonBody middleware (Koa on a loopback server)', () => {
  let server: Server;
  let port: number;
  // nock (active once any test file imported it) inspects intercepted request bodies and throws
  // on a corrupt gzip body before it reaches the server: it is switched off for this suite.
  let nockWasActive = false;
  /** Every answered request, also those whose client is gone before the answer. */
  const finished: Array<{ status: number; body: unknown }> = [];

  before(async () => {
    nockWasActive = nock.isActive();
    if (nockWasActive) nock.restore();
    const app = new Koa();
    app.silent = true; // a cut-off request's parse error is expected here
    app.use(async (ctx, next) => {
      await next();
      finished.push({ status: ctx.status, body: ctx.body });
    });
    app.use(requestLog(pino({ level: 'silent' })));
    app.use(jsonBody(LIMIT));
    app.use((ctx) => {
      ctx.body = {
        body: ctx.request.body ?? null,
        bytes: rawBodyOf(ctx).toString('hex'),
        type: typeof ctx.request.body,
      };
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (nockWasActive) nock.activate();
  });

  it('parses a JSON object and keeps its exact bytes', async () => {
    const answer = await send(port, ...json('{"a": [1, "é"]}'));
    expect(answer.status).to.equal(200);
    expect(answer.body.body).to.deep.equal({ a: [1, 'é'] });
    expect(answer.body.bytes).to.equal(Buffer.from('{"a": [1, "é"]}').toString('hex'));
  });

  it('accepts any JSON value, +json types and a charset parameter', async () => {
    expect((await send(port, ...json('"text"'))).body.body).to.equal('text');
    expect((await send(port, ...json('[1,2]', { 'content-type': 'application/vnd.api+json' }))).body.body).to.deep.equal([1, 2]);
    expect((await send(port, ...json('{"x":1}', { 'content-type': 'Application/JSON; charset=utf-8' }))).body.body).to.deep.equal({ x: 1 });
  });

  it('leaves the body undefined when the request has none', async () => {
    const answer = await send(port, { 'content-length': '0' });
    expect(answer.status).to.equal(200);
    expect(answer.body.type).to.equal('undefined');
  });

  it('answers 415 for a body that is not JSON', async () => {
    const answer = await send(port, { 'content-type': 'text/plain', 'content-length': '5' }, 'hello');
    expect(answer).to.deep.equal({ status: 415, body: { error: 'Content-Type must be application/json' } });
    const none = await send(port, { 'content-length': '2' }, '{}');
    expect(none).to.deep.equal({ status: 415, body: { error: 'Content-Type must be application/json' } });
  });

  it('answers 400 for malformed JSON and for JSON that sets __proto__', async () => {
    expect(await send(port, ...json('{"a":'))).to.deep.equal({
      status: 400,
      body: { error: 'Invalid JSON body: unexpected end of the body at line 1 column 6' },
    });
    const proto = { status: 400, body: { error: 'Invalid JSON body: a "__proto__" key is not allowed' } };
    expect(await send(port, ...json('{"__proto__": {"admin": true}}'))).to.deep.equal(proto);
    expect(await send(port, ...json('{"a":{"\\u005f_proto__": {"admin": true}}}'))).to.deep.equal(proto);
  });

  it('names the line and column of the first fault in malformed JSON, and never a character of the body (it may hold a secret)', async () => {
    for (const [text, error] of [
      ['{\n "t": Bearer sk-1\n}', 'Invalid JSON body: unexpected character at line 2 column 7'],
      ['{"t":\n  sk-live-1}', 'Invalid JSON body: unexpected character at line 2 column 3'],
      ['[1,\n 2,\n]', 'Invalid JSON body: unexpected character at line 3 column 1 (a comma before a closing bracket)'],
      ['{"a" 1}', "Invalid JSON body: expected ':' after property name at line 1 column 6"],
      ['{"k":"v"}\n}', 'Invalid JSON body: unexpected non-whitespace character after JSON at line 2 column 1'],
      ['{"k":"a\u0001"}', 'Invalid JSON body: bad control character in string literal at line 1 column 8'],
      ['{"k": tru', 'Invalid JSON body: unexpected end of the body at line 1 column 10'],
      ['{"k": "s3cr3t', 'Invalid JSON body: unterminated string at line 1 column 14'],
      // The column in characters (code points), as an editor shows it: an emoji before the fault counts one.
      ['{"k": "🎉", Bearer sk-1}', 'Invalid JSON body: expected double-quoted property name at line 1 column 12'],
      ['["🎉🎉" 1]', "Invalid JSON body: expected ',' or ']' after array element at line 1 column 7"],
      ['{"k": 1}\n{"🎉": tru', 'Invalid JSON body: unexpected non-whitespace character after JSON at line 2 column 1'],
      ['{\n "🎉": tru', 'Invalid JSON body: unexpected end of the body at line 2 column 10'],
    ]) {
      const answer = await send(port, ...json(text));
      expect(answer, text).to.deep.equal({ status: 400, body: { error } });
      expect(answer.body.error, text).not.to.match(/Bear|sk-|s3cr|tru\b/);
    }
  });

  it(`answers 413 for a body over the limit (${LIMIT} bytes), declared or chunked`, async () => {
    const big = JSON.stringify({ text: 'x'.repeat(LIMIT) });
    const tooLarge = { status: 413, body: { error: `Request body is larger than ${LIMIT} bytes` } };
    expect(await send(port, ...json(big))).to.deep.equal(tooLarge);
    const chunked = await send(port, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, undefined, ['{"text":"', 'x'.repeat(LIMIT), '"}']);
    expect(chunked).to.deep.equal(tooLarge);
  });

  it('accepts a body of exactly the limit', async () => {
    const exact = JSON.stringify({ t: 'y'.repeat(LIMIT - 8) });
    expect(Buffer.byteLength(exact)).to.equal(LIMIT);
    expect((await send(port, ...json(exact))).status).to.equal(200);
  });

  it('decompresses gzip, deflate and br bodies, with the limit on the decompressed size', async () => {
    const text = '{"zipped":true}';
    for (const [encoding, packed] of [
      ['gzip', gzipSync(text)],
      ['deflate', deflateSync(text)],
      ['br', brotliCompressSync(text)],
    ] as const) {
      const answer = await send(port, { 'content-type': 'application/json', 'content-encoding': encoding, 'content-length': String(packed.length) }, packed);
      expect(answer.body.body, encoding).to.deep.equal({ zipped: true });
    }
    // a small gzip that inflates past the limit
    const bomb = gzipSync(JSON.stringify({ pad: ' '.repeat(10 * LIMIT) }));
    expect(bomb.length).to.be.below(LIMIT);
    const answer = await send(port, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(bomb.length) }, bomb);
    expect(answer.status).to.equal(413);
  });

  it('answers 415 for an unknown content-encoding and 400 for a corrupt compressed body', async () => {
    const unknown = await send(port, { 'content-type': 'application/json', 'content-encoding': 'zstd', 'content-length': '2' }, '{}');
    expect(unknown).to.deep.equal({ status: 415, body: { error: 'Unsupported body encoding' } });
    const corrupt = await send(port, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': '9' }, 'not gzip!');
    expect(corrupt).to.deep.equal({ status: 400, body: { error: 'Invalid request body: it does not decompress as its Content-Encoding says' } });
  });

  it('answers 400 for a corrupt deflate or br body, and takes x-gzip and upper-case codings as gzip', async () => {
    for (const encoding of ['deflate', 'br']) {
      const corrupt = await send(port, { 'content-type': 'application/json', 'content-encoding': encoding, 'content-length': '9' }, 'not zip!!');
      expect(corrupt, encoding).to.deep.equal({ status: 400, body: { error: 'Invalid request body: it does not decompress as its Content-Encoding says' } });
    }
    const packed = gzipSync('{"zipped":1}');
    for (const encoding of ['x-gzip', 'GZIP', ' gzip ']) {
      const answer = await send(port, { 'content-type': 'application/json', 'content-encoding': encoding, 'content-length': String(packed.length) }, packed);
      expect(answer.body.body, encoding).to.deep.equal({ zipped: 1 });
    }
  });

  it('refuses a body that is not valid UTF-8 with a 400 naming the first bad byte, instead of storing U+FFFD', async () => {
    const cases: ReadonlyArray<readonly [string, Buffer, number]> = [
      ['Latin-1 é', bytesOf('{"job":"r', [0xe9], 'sum', [0xe9], '"}'), 9],
      ['an encoded lone surrogate (ED A0 BD)', bytesOf('{"a":"', [0xed, 0xa0, 0xbd], '"}'), 6],
      ['an overlong "/" (C0 AF)', bytesOf('{"a":"', [0xc0, 0xaf], '"}'), 6],
      ['a sequence cut off inside the text (E2 82)', bytesOf('{"a":"', [0xe2, 0x82], '"}'), 6],
      ['a sequence cut off at the end of the body (F0 9F 98)', bytesOf('"', [0xf0, 0x9f, 0x98]), 1],
      ['a lone continuation byte (80)', bytesOf('["ok \\u00e9 é", "', [0x80], '"]'), 18],
      ['a code point over U+10FFFF (F4 90 80 80)', bytesOf('"', [0xf4, 0x90, 0x80, 0x80], '"'), 1],
    ];
    for (const [what, payload, offset] of cases) {
      const answer = await send(port, ...jsonBytes(payload));
      expect(answer, what).to.deep.equal({ status: 400, body: { error: `Invalid JSON body: not valid UTF-8 at byte offset ${offset}` } });
    }
  });

  it('counts the bad byte after a U+FFFD that was sent as such (EF BF BD), which is valid text and kept', async () => {
    const sent = bytesOf('{"a":"\\ufffd \ufffd"}');
    expect((await send(port, ...jsonBytes(sent))).body.body).to.deep.equal({ a: '� �' });
    const answer = await send(port, ...jsonBytes(bytesOf('["��', [0xff], '"]')));
    expect(answer.body.error).to.equal('Invalid JSON body: not valid UTF-8 at byte offset 8');
  });

  it('refuses a compressed body whose decompressed bytes are not UTF-8, counting in the decompressed body', async () => {
    const packed = gzipSync(bytesOf('{"command":"', [0xe9], 'l', [0xe8], 've"}'));
    const answer = await send(port, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(packed.length) }, packed);
    expect(answer).to.deep.equal({ status: 400, body: { error: 'Invalid JSON body: not valid UTF-8 at byte offset 12' } });
  });

  it('says a UTF-16 or UTF-32 body is one, with its byte order mark or without', async () => {
    const text = '{"a":1}';
    const withBom = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    expect(await send(port, ...jsonBytes(withBom))).to.deep.equal({
      status: 400,
      body: { error: 'Invalid JSON body: not valid UTF-8 at byte offset 0; it starts with a UTF-16 byte order mark: send it as UTF-8' },
    });
    const bigEndian = Buffer.from(text, 'utf16le').swap16();
    const utf32 = Buffer.concat([...text].map((char) => Buffer.from([0, 0, 0, char.charCodeAt(0)])));
    for (const [what, payload] of [
      ['UTF-16LE', Buffer.from(text, 'utf16le')],
      ['UTF-16BE', bigEndian],
      ['UTF-32BE', utf32],
    ] as const) {
      const answer = await send(port, ...jsonBytes(payload));
      expect(answer, what).to.deep.equal({ status: 400, body: { error: 'Invalid JSON body: it looks like UTF-16 or UTF-32; send it as UTF-8' } });
    }
  });

  it('ignores a leading UTF-8 byte order mark, keeping it in the raw bytes', async () => {
    const payload = bytesOf([0xef, 0xbb, 0xbf], '{"bom":"é"}');
    const answer = await send(port, ...jsonBytes(payload));
    expect(answer.status).to.equal(200);
    expect(answer.body.body).to.deep.equal({ bom: 'é' });
    expect(answer.body.bytes).to.equal(payload.toString('hex'));
    const onlyBom = await send(port, ...jsonBytes(Buffer.from([0xef, 0xbb, 0xbf])));
    expect(onlyBom.body.type).to.equal('undefined');
    const twice = await send(port, ...jsonBytes(bytesOf([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], '{}')));
    expect(twice).to.deep.equal({ status: 400, body: { error: 'Invalid JSON body: unexpected character at line 1 column 1' } });
  });

  it('takes a charset parameter that means UTF-8, however it is written', async () => {
    for (const contentType of [
      'application/json; charset=utf-8',
      'application/json; charset=UTF-8',
      'application/json; charset="utf-8"',
      'application/json;charset=Utf-8',
      'application/json; charset=utf8',
      'application/json; charset=US-ASCII',
      'application/vnd.api+json; charset=utf-8',
    ]) {
      const answer = await send(port, ...jsonBytes(bytesOf('{"é":1}'), { 'content-type': contentType }));
      expect(answer, contentType).to.deep.include({ status: 200 });
      expect(answer.body.body, contentType).to.deep.equal({ é: 1 });
    }
  });

  it('refuses a body whose charset is not UTF-8 with a 415 naming it, before reading it', async () => {
    const cases: ReadonlyArray<readonly [string, string, Buffer]> = [
      ['utf-16le', 'application/json; charset=utf-16le', Buffer.from('{"a":1}', 'utf16le')],
      ['UTF-16', 'application/json; charset="UTF-16"', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('{}', 'utf16le').swap16()])],
      ['utf-7', 'application/json; charset=utf-7', bytesOf('{"a":"+AOk-"}')],
      ['shift_jis', 'application/json; charset=shift_jis', bytesOf('{}')],
    ];
    for (const [charset, contentType, payload] of cases) {
      const answer = await send(port, ...jsonBytes(payload, { 'content-type': contentType }));
      expect(answer, contentType).to.deep.equal({ status: 415, body: { error: `Unsupported charset ${charset}: send the JSON body as UTF-8` } });
    }
  });

  it('takes a body in plain ASCII under an ASCII-compatible label (iso-8859-1, windows-1252…), and refuses one with other bytes under it with a 415', async () => {
    for (const contentType of [
      'application/json; charset=iso-8859-1',
      'application/json; charset=ISO-8859-15',
      'application/json; charset=latin1',
      'application/problem+json; charset=windows-1252',
      'application/json; charset=ascii',
    ]) {
      const answer = await send(port, ...jsonBytes(bytesOf('{"job":"resume the doc"}'), { 'content-type': contentType }));
      expect(answer, contentType).to.deep.include({ status: 200 });
      expect(answer.body.body, contentType).to.deep.equal({ job: 'resume the doc' });
    }
    for (const [charset, payload] of [
      ['iso-8859-1', bytesOf('{"job":"r', [0xe9], 'sum', [0xe9], '"}')],
      ['windows-1252', bytesOf('{"job":"', [0xc3, 0xa9], '"}')],
    ] as const) {
      const answer = await send(port, ...jsonBytes(payload, { 'content-type': `application/json; charset=${charset}` }));
      expect(answer, charset).to.deep.equal({
        status: 415,
        body: { error: `Unsupported charset ${charset}: send the JSON body as UTF-8 (under this label only a body in plain ASCII is taken)` },
      });
    }
  });

  it('answers 400 for a request cut off in the middle of its body, plain or compressed', async () => {
    const cutOff = (headers: Record<string, string>, part: Buffer | string): Promise<void> =>
      new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          const head = Object.entries({ host: `127.0.0.1:${port}`, ...headers })
            .map(([name, value]) => `${name}: ${value}\r\n`)
            .join('');
          socket.write(`POST / HTTP/1.1\r\n${head}\r\n`);
          socket.write(part, () => setImmediate(() => socket.destroy()));
        });
        socket.on('close', () => resolve());
      });
    const waitForAnswer = async (count: number): Promise<{ status: number; body: unknown }> => {
      for (let tries = 0; finished.length < count; tries++) {
        if (tries > 400) throw new Error('the request was never answered');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return finished[count - 1];
    };
    const before = finished.length;
    await cutOff({ 'content-type': 'application/json', 'content-length': '40' }, '{"a":');
    expect(await waitForAnswer(before + 1)).to.deep.equal({ status: 400, body: { error: 'Request body was cut off' } });
    const packed = gzipSync(JSON.stringify({ pad: 'x'.repeat(200) }));
    await cutOff({ 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(packed.length) }, packed.subarray(0, 10));
    expect(await waitForAnswer(before + 2)).to.deep.equal({ status: 400, body: { error: 'Request body was cut off' } });
  });
});
