import { createHmac, randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { constants, createGzip, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { InMemoryDeliveryLog } from '../../fakes/in-memory-delivery-log.js';
import { startCodehostWebhookServer, type CodehostWebhookServer } from '../../support/codehost-webhook-server.js';

const SECRET = 'compressed-body-secret';
const sign = (raw: Buffer | string): string => `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;

/** The connections the tests opened: destroyed after each test, answered or not. */
const opened = new Set<Socket>();

/** The first answer written on a connection (status and JSON body), read as soon as it is whole: the connection may stay open. */
const firstAnswer = (port: number, head: string, body: Buffer): Promise<{ status: number; body: unknown }> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    opened.add(socket);
    let received = Buffer.alloc(0);
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const text = received.toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end))?.[1];
      if (end === -1 || length === undefined || received.length < end + 4 + Number(length)) return;
      socket.destroy();
      resolve({ status: Number(text.slice(9, 12)), body: JSON.parse(text.slice(end + 4, end + 4 + Number(length))) as unknown });
    });
    socket.write(Buffer.concat([Buffer.from(head), body]));
  });

/** A kilobyte of gzip that inflates to `bytes` bytes of JSON text, not finished (no trailer): a body that never ends. */
const inflatingStart = async (bytes: number): Promise<Buffer> => {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  gzip.write(`"${'x'.repeat(bytes)}`);
  await new Promise<void>((resolve) => gzip.flush(constants.Z_SYNC_FLUSH, () => resolve()));
  gzip.destroy();
  return Buffer.concat(out);
};

/**
 * POST /api/codehost/webhook through the service's router and handler: its caller is known only
 * once the body is read (the signature covers it), so a compressed body — which GitHub never
 * sends — is refused before it is read. It was read and inflated up to the body limit first: a
 * kilobyte of gzip that inflates to the limit, its end never sent, held that much memory per
 * connection until the request timeout, for a caller without the secret.
 */
describe('the code-host webhook and compressed bodies', function () {
  this.timeout(30_000);
  let server: CodehostWebhookServer;
  let port: number;

  beforeEach(async () => {
    server = await startCodehostWebhookServer({ secret: SECRET, deliveries: new InMemoryDeliveryLog() });
    port = Number(new URL(server.url).port);
  });

  afterEach(async () => {
    for (const socket of opened) socket.destroy();
    opened.clear();
    await server.close();
  });

  const headers = (extra: string): string =>
    `POST /api/codehost/webhook HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nx-github-event: push\r\nx-github-delivery: ${randomUUID()}\r\n${extra}\r\n`;

  it('refuses a compressed body with a 415 before reading it: a kilobyte of gzip inflating to the limit, never finished, is answered at once', async () => {
    const start = await inflatingStart(60 * 1024);
    expect(start.length).to.be.below(1024);
    const answer = await firstAnswer(
      port,
      headers(`x-hub-signature-256: sha256=${'a'.repeat(64)}\r\ncontent-encoding: gzip\r\ntransfer-encoding: chunked\r\n`),
      Buffer.concat([Buffer.from(`${start.length.toString(16)}\r\n`), start, Buffer.from('\r\n')]),
    );
    expect(answer).to.deep.equal({
      status: 415,
      body: { error: 'This webhook takes no compressed body (Content-Encoding gzip): send it uncompressed, as the platform does' },
    });
  });

  it('refuses a compressed body even when it is whole and signed, in any case of its coding; takes Content-Encoding identity', async () => {
    const push = '{"ref":"refs/heads/main","before":"a","after":"b","commits":[],"repository":{"pushed_at":1}}';
    const zipped = gzipSync(push);
    for (const coding of ['gzip', ' X-GZIP', 'br']) {
      const answer = await firstAnswer(
        port,
        headers(`x-hub-signature-256: ${sign(push)}\r\ncontent-encoding: ${coding}\r\ncontent-length: ${zipped.length}\r\n`),
        zipped,
      );
      expect(answer.status, coding).to.equal(415);
    }
    const plain = await firstAnswer(
      port,
      headers(`x-hub-signature-256: ${sign(push)}\r\ncontent-encoding: identity\r\ncontent-length: ${push.length}\r\n`),
      Buffer.from(push),
    );
    expect(plain).to.deep.equal({ status: 200, body: { ok: true, triggers: [] } });
  });
});
