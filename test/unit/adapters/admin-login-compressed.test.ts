import { connect, type Socket } from 'node:net';
import { constants, createGzip, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { loginNonce } from '../../support/admin-http.js';
import { ADMIN_PASSWORD as PASSWORD, adminAuthentication, type LoopbackServer, serveAdminUi } from '../../support/admin-ui.js';
import { InMemoryLoginAttempts } from '../../fakes/in-memory-login-attempts.js';

/*
 * The admin login is read before anyone is signed in: a compressed form (which no browser sends)
 * is refused with a 415 page before it is read. It was read and inflated up to FORM_LIMIT first:
 * about a hundred bytes of gzip inflating to 16 KiB, never finished, held that much per
 * connection until the request timeout.
 */

interface Answer {
  readonly status: number;
  readonly head: string;
  readonly body: string;
}

describe('admin UI: a compressed login form', () => {
  let server: LoopbackServer;
  let port: number;
  let attempts: InMemoryLoginAttempts;
  const opened = new Set<Socket>();

  beforeEach(async () => {
    attempts = new InMemoryLoginAttempts();
    // Only the login is posted here: the other parts are never reached.
    server = await serveAdminUi({ auth: await adminAuthentication({ attempts }) });
    port = server.port;
  });

  afterEach(async () => {
    for (const socket of opened) socket.destroy();
    opened.clear();
    await server.close();
  });

  /** The first answer written on a connection, read as soon as it is whole: the connection may stay open. */
  const firstAnswer = (head: string, body: Buffer): Promise<Answer> =>
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
        resolve({ status: Number(text.slice(9, 12)), head: text.slice(0, end), body: text.slice(end + 4, end + 4 + Number(length)) });
      });
      socket.write(Buffer.concat([Buffer.from(head), body]));
    });

  /** The right login's form (with the nonce of a login page fetched first) and its headers, ending with `extra(form)`. */
  const loginHead = async (extra: (form: string) => string): Promise<{ head: string; form: string }> => {
    const { cookie, nonce } = await loginNonce(`http://127.0.0.1:${port}`);
    const form = new URLSearchParams({ password: PASSWORD, nonce }).toString();
    return {
      head: `POST /settings/login HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/x-www-form-urlencoded\r\ncookie: ${cookie}\r\n${extra(form)}\r\n`,
      form,
    };
  };

  const expectRefused = (answer: Answer, coding: string): void => {
    expect(answer.status).to.equal(415);
    expect(answer.body).to.contain('<title>Unsupported form');
    expect(answer.body).to.contain(`The login form takes no compressed body (Content-Encoding ${coding}): send it uncompressed, as a browser does`);
    expect(answer.head, 'no session').not.to.match(/agw_session=/i);
  };

  it('refuses a whole gzip, deflate or br login form with the right password and its nonce: a 415 page, no session, nothing counted', async () => {
    for (const coding of ['gzip', 'deflate', 'br', ' X-Gzip']) {
      let zipped = Buffer.alloc(0);
      const { head } = await loginHead((form) => {
        zipped = gzipSync(form);
        return `content-encoding: ${coding}\r\ncontent-length: ${zipped.length}\r\n`;
      });
      expectRefused(await firstAnswer(head, zipped), coding.trim().toLowerCase());
    }
    expect(attempts.reads + attempts.writes, 'the login limit never consulted').to.equal(0);
  });

  it('answers a gzip login form that never ends at once, before reading it', async () => {
    const gzip = createGzip({ level: 9 });
    const out: Buffer[] = [];
    gzip.on('data', (chunk: Buffer) => out.push(chunk));
    gzip.write(`password=${'x'.repeat(15 * 1024)}`);
    await new Promise<void>((resolve) => gzip.flush(constants.Z_SYNC_FLUSH, () => resolve()));
    gzip.destroy();
    const start = Buffer.concat(out);
    expect(start.length).to.be.below(200);
    const { head } = await loginHead(() => 'content-encoding: gzip\r\ntransfer-encoding: chunked\r\n');
    expectRefused(await firstAnswer(head, Buffer.concat([Buffer.from(`${start.length.toString(16)}\r\n`), start, Buffer.from('\r\n')])), 'gzip');
  });

  it('takes the same login uncompressed, or with Content-Encoding identity', async () => {
    for (const extra of ['', 'content-encoding: identity\r\n']) {
      const { head, form } = await loginHead((text) => `${extra}content-length: ${Buffer.byteLength(text)}\r\n`);
      const answer = await firstAnswer(head, Buffer.from(form));
      expect(answer.status, extra).to.equal(303);
      expect(answer.head).to.match(/\r\nlocation: \/settings\/keys/i);
      expect(answer.head).to.match(/agw_session=/i);
    }
  });
});
