import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey, send, waitFor, type JsonResponse } from '../support/http.js';

/*
 * Bodies that are valid JSON but hostile in shape or content, on the built server with an
 * enabled trigger on every body endpoint, so the request snapshot a trigger stores is built.
 * Each answer is a clear 4xx or a success — never a 500.
 */

const CODEHOST_SECRET = 'codehost-secret-for-bad-input';
const MESSAGING_SECRET = 'messaging-secret-for-bad-input';
const LIMIT = 64;

/** `levels` nested arrays: `[[[…]]]`. */
const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

describe('e2e: bad input on the built server', function () {
  this.timeout(60_000);
  let gateway: GatewayProcess | undefined;
  let key: string;
  let prompts: string;

  const sign = (raw: Buffer | string): string => `sha256=${createHmac('sha256', CODEHOST_SECRET).update(raw).digest('hex')}`;
  const post = (path: string, raw: string | Buffer, headers: Record<string, string> = {}): Promise<JsonResponse<{ error?: string; triggers?: string[] }>> =>
    send(`${gateway!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });

  /** An event whose payloads the gateway does not check (a push must carry a ref and commits): any JSON passes. */
  const ANY_EVENT = 'any_payload';
  /** Each body endpoint, with the credential it needs for this body. */
  const endpoints: ReadonlyArray<readonly [string, (raw: string | Buffer) => Record<string, string>]> = [
    ['/api/webhook', () => ({ 'x-api-key': key })],
    ['/api/codehost/webhook', (raw) => ({ 'x-hub-signature-256': sign(raw), 'x-github-event': ANY_EVENT, 'x-github-delivery': randomUUID() })],
    ['/api/messaging/webhook', () => ({ 'x-telegram-bot-api-secret-token': MESSAGING_SECRET })],
  ];

  before(async () => {
    const dir = await tempDir('bad-input');
    prompts = await tempDir('bad-input-prompts');
    const triggersFile = join(dir, 'TRIGGERS.json');
    const watching = (path: string) => ({
      name: `on${path.replace(/\//g, '-')}`,
      watch_path: path,
      enabled: true,
      actions: [{ type: 'command', command: 'true' }],
    });
    await writeFile(triggersFile, JSON.stringify([watching('/webhook'), watching('/codehost/webhook'), watching('/messaging/webhook')]));
    gateway = await startGateway({
      DATA_DIR: await migratedDataDir('bad-input-data'),
      TRIGGERS_FILE: triggersFile,
      TRIGGERS_DIR: dir,
      CODEHOST_WEBHOOK_SECRET: CODEHOST_SECRET,
      MESSAGING_BOT_TOKEN: '123456:bad-input-token',
      MESSAGING_WEBHOOK_SECRET: MESSAGING_SECRET,
      MESSAGING_API_URL: 'http://127.0.0.1:9',
      JOB_AGENT_COMMAND: `printf '%s' "$JOB_PROMPT" > '${prompts}'/"$JOB_ID".txt`,
    });
    key = await createKey(gateway.env);
  });
  after(() => gateway?.stop());

  it(`refuses JSON nested deeper than ${LIMIT} levels (5 000 levels, 10 KB) with a 400 naming the limit, on every body endpoint`, async () => {
    const deep = nested(5_000);
    for (const [path, credentials] of endpoints) {
      const answer = await post(path, deep, credentials(deep));
      expect(answer, path).to.deep.equal({ status: 400, body: { error: `JSON body is nested deeper than ${LIMIT} levels` } });
    }
  });

  it('answers a malformed body on a signed endpoint 401 while its signature is wrong, 400 once it is right', async () => {
    for (const raw of ['{"cut":', nested(5_000)]) {
      const forged = await post('/api/codehost/webhook', raw, {
        'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
        'x-github-event': 'push',
        'x-github-delivery': randomUUID(),
      });
      expect(forged, raw.slice(0, 10)).to.deep.equal({ status: 401, body: { error: 'Unauthorized' } });
      const wrongSecret = await post('/api/messaging/webhook', raw, { 'x-telegram-bot-api-secret-token': 'not the secret' });
      expect(wrongSecret.status, raw.slice(0, 10)).to.equal(401);
    }
    const signed = await post('/api/codehost/webhook', '{"cut":', endpoints[1][1]('{"cut":'));
    const cut = { status: 400, body: { error: 'Invalid JSON body: unexpected end of the body at line 1 column 8' } };
    expect(signed).to.deep.equal(cut);
    const secret = await post('/api/messaging/webhook', '{"cut":', endpoints[2][1]('{"cut":'));
    expect(secret).to.deep.equal(cut);
  });

  it(`accepts JSON nested exactly ${LIMIT} levels deep and fires the trigger with it`, async () => {
    const deepest = nested(LIMIT);
    const answer = await post('/api/webhook', deepest, { 'x-api-key': key });
    expect(answer).to.deep.equal({ status: 200, body: { ok: true, triggers: ['on-webhook'] } });
    const signed = await post('/api/codehost/webhook', deepest, endpoints[1][1](deepest));
    expect(signed.status).to.equal(200);
    expect(signed.body.triggers).to.deep.equal(['on-codehost-webhook']);
  });

  it('create-job refuses a job holding a NUL character with a 400 naming the field', async () => {
    const answer = await post('/api/create-job', JSON.stringify({ job: 'a\u0000b' }), { 'x-api-key': key });
    expect(answer).to.deep.equal({ status: 400, body: { error: 'Field job must not contain NUL characters (U+0000)' } });
    const provider = await post('/api/create-job', JSON.stringify({ job: 'fine', llm_model: 'm\u0000' }), { 'x-api-key': key });
    expect(provider).to.deep.equal({ status: 400, body: { error: 'Field llm_model must not contain NUL characters (U+0000)' } });
  });

  it('replaces a lone surrogate in a body with U+FFFD: the job runs with the replaced prompt', async () => {
    // JSON.stringify writes a lone surrogate as the escape \ud83d, which is valid JSON.
    const answer = await post('/api/create-job', JSON.stringify({ job: 'cut emoji \ud83d here' }), { 'x-api-key': key });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    const jobId = (answer.body as { job_id: string }).job_id;
    const prompt = await waitFor(() => readFile(join(prompts, `${jobId}.txt`), 'utf8').catch(() => undefined), 30_000, 'the agent to write the prompt');
    expect(prompt).to.equal('cut emoji \ufffd here');
  });

  it('takes a body holding NUL characters and lone surrogates on the general webhook (any valid JSON is stored)', async () => {
    const answer = await post('/api/webhook', JSON.stringify({ text: 'nul \u0000 and \udc00 lone' }), { 'x-api-key': key });
    expect(answer).to.deep.equal({ status: 200, body: { ok: true, triggers: ['on-webhook'] } });
  });

  it('answers 413 for a gzip bomb: 20 MB of JSON in about 20 KB, over BODY_LIMIT once inflated', async () => {
    const bomb = gzipSync(`{"pad":"${' '.repeat(20 * 1024 * 1024)}"}`, { level: 9 });
    expect(bomb.length).to.be.below(64 * 1024);
    const answer = await post('/api/webhook', bomb, { 'x-api-key': key, 'content-encoding': 'gzip' });
    expect(answer).to.deep.equal({ status: 413, body: { error: 'Request body is larger than 1048576 bytes' } });
  });

  it('checks the code-host signature over the exact bytes: multi-byte UTF-8 passes; bytes that are not UTF-8 are 401 unsigned, 400 naming the byte once signed', async () => {
    const utf8 = Buffer.from(JSON.stringify({ text: 'é 😀 \u00e9 — ok' }), 'utf8');
    const good = await post('/api/codehost/webhook', utf8, {
      'x-hub-signature-256': sign(utf8),
      'x-github-event': ANY_EVENT,
      'x-github-delivery': randomUUID(),
    });
    expect(good).to.deep.equal({ status: 200, body: { ok: true, triggers: ['on-codehost-webhook'] } });
    const signedAs = (signature: string) => ({ 'x-hub-signature-256': signature, 'x-github-event': 'star', 'x-github-delivery': randomUUID() });
    for (const [what, notUtf8, offset] of [
      ['0xff', Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff]), Buffer.from('"}')]), 6],
      ['an encoded surrogate', Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xed, 0xa0, 0xbd]), Buffer.from('"}')]), 6],
      ['UTF-16 with its byte order mark', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"a":1}', 'utf16le')]), 0],
    ] as const) {
      const forged = await post('/api/codehost/webhook', notUtf8, signedAs(sign(Buffer.concat([notUtf8, Buffer.from(' ')]))));
      expect(forged, `${what}, wrongly signed`).to.deep.equal({ status: 401, body: { error: 'Unauthorized' } });
      const signed = await post('/api/codehost/webhook', notUtf8, signedAs(sign(notUtf8)));
      expect(signed.status, `${what}, signed`).to.equal(400);
      expect(signed.body.error, what).to.match(new RegExp(`^Invalid JSON body: not valid UTF-8 at byte offset ${offset}\\b`));
    }
    // A signature over the body re-encoded from its U+FFFD-decoded text (what used to be checked) is refused.
    const latin1 = Buffer.from('{"a":"\xe9l\xe8ve"}', 'latin1');
    const reencoded = Buffer.from(latin1.toString('utf8'), 'utf8');
    const answer = await post('/api/codehost/webhook', latin1, signedAs(sign(reencoded)));
    expect(answer).to.deep.equal({ status: 401, body: { error: 'Unauthorized' } });
  });

  it('refuses a body that is not UTF-8 on every body endpoint (400 naming the byte) and a charset other than UTF-8 (415), instead of storing U+FFFD', async () => {
    const latin1 = Buffer.from('{"job":"r\xe9sum\xe9 the doc","text":"\xe9l\xe8ve"}', 'latin1');
    const notUtf8 = { status: 400, body: { error: 'Invalid JSON body: not valid UTF-8 at byte offset 9' } };
    expect(await post('/api/create-job', latin1, { 'x-api-key': key }), 'create-job').to.deep.equal(notUtf8);
    for (const [path, credentials] of endpoints) {
      expect(await post(path, latin1, credentials(latin1)), path).to.deep.equal(notUtf8);
    }
    const refusedCharset = (charset: string) => ({ status: 415, body: { error: `Unsupported charset ${charset}: send the JSON body as UTF-8` } });
    const latin1Headers = { 'content-type': 'application/json; charset=iso-8859-1', 'x-api-key': key };
    const notAscii = {
      status: 415,
      body: { error: 'Unsupported charset iso-8859-1: send the JSON body as UTF-8 (under this label only a body in plain ASCII is taken)' },
    };
    expect(await post('/api/create-job', latin1, latin1Headers), 'create-job iso-8859-1').to.deep.equal(notAscii);
    expect(await post('/api/webhook', latin1, latin1Headers), 'webhook iso-8859-1').to.deep.equal(notAscii);
    for (const [charset, body] of [
      ['utf-7', Buffer.from('{"job":"+AOk-"}')],
      ['utf-16le', Buffer.from('{"job":"\u00e9"}', 'utf16le')],
    ] as const) {
      const headers = { 'content-type': `application/json; charset=${charset}`, 'x-api-key': key };
      expect(await post('/api/create-job', body, headers), `create-job ${charset}`).to.deep.equal(refusedCharset(charset));
      expect(await post('/api/webhook', body, headers), `webhook ${charset}`).to.deep.equal(refusedCharset(charset));
    }
    // The same text in UTF-8, declared so, is taken as sent.
    const utf8 = await post('/api/create-job', Buffer.from('{"job":"résumé the doc"}'), {
      'content-type': 'application/json; charset="UTF-8"',
      'x-api-key': key,
    });
    expect(utf8.status, JSON.stringify(utf8.body)).to.equal(200);
    const jobId = (utf8.body as { job_id: string }).job_id;
    const prompt = await waitFor(() => readFile(join(prompts, `${jobId}.txt`), 'utf8').catch(() => undefined), 30_000, 'the agent to write the prompt');
    expect(prompt).to.equal('résumé the doc');
  });

  it('answers a malformed percent-encoding in an /api path or query with a 4xx', async () => {
    const path = await send(`${gateway!.url}/api/%E0%A4%A`, { headers: { 'x-api-key': key } });
    expect(path).to.deep.equal({ status: 404, body: { error: 'Not found' } });
    const query = await send(`${gateway!.url}/api/jobs/status?job_id=%E0%A4%A`, { headers: { 'x-api-key': key } });
    expect(query.status).to.equal(400);
  });
});
