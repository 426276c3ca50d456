import { expect } from 'chai';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import nock from 'nock';
import { NodeFetchHttpForwarder } from '../../src/adapters/forwarder/node-fetch-http-forwarder.js';
import { describeHttpForwarderContract, type ScriptedPeer } from './http-forwarder.contract.js';

const make = () => new NodeFetchHttpForwarder({ attempts: 3, backoffMs: 5, timeoutMs: 2000 });

const loopbackPeer = async (): Promise<ScriptedPeer> => {
  let statuses: Parameters<ScriptedPeer['script']>[0] = [200];
  const received: ReturnType<ScriptedPeer['received']> = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ method: req.method ?? '', headers: req.headers, body });
      const status = statuses.length > 1 ? statuses.shift()! : statuses[0];
      if (status === 'drop') req.socket.destroy();
      else if (status === 'endless') {
        res.writeHead(200);
        const more = (): void => {
          while (!res.destroyed && res.write(Buffer.alloc(16 * 1024, 'x')));
          if (!res.destroyed) res.once('drain', more);
        };
        more();
      } else if (status !== 'hang') res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    script: (next) => (statuses = [...next]),
    received: () => received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // A 'hang' answer keeps its connection open.
        server.closeAllConnections();
      }),
  };
};

/** The same peer behaviour as nock interceptors on a host no network can reach. */
const nockPeer = async (): Promise<ScriptedPeer> => {
  const url = 'https://hooks.example.test';
  const received: ReturnType<ScriptedPeer['received']> = [];
  if (!nock.isActive()) nock.activate();
  nock.disableNetConnect();
  return {
    url,
    script: (statuses) => {
      const scope = nock(url);
      scope.on('request', (req: { method: string; headers: Headers }, _interceptor: unknown, body: string) => {
        // nock hands over a Fetch-style Headers object
        const headers: Record<string, string> = {};
        req.headers.forEach((value, key) => {
          headers[key.toLowerCase()] = value;
        });
        received.push({ method: req.method, headers, body: body ?? '' });
      });
      const all = [...statuses, ...Array(5).fill(statuses[statuses.length - 1])];
      for (const [status, method] of all.flatMap(
        (s) =>
          [
            [s, 'POST'],
            [s, 'GET'],
          ] as const,
      )) {
        const interceptor = scope.intercept(/.*/, method);
        if (status === 'drop') {
          interceptor.replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
        } else if (status === 'hang') {
          // Answers after the suite's longest wait: the case aborts long before.
          interceptor.delay(60_000).reply(200, '');
        } else if (status === 'endless') {
          interceptor.reply(
            200,
            () =>
              new Readable({
                read: function () {
                  this.push(Buffer.alloc(16 * 1024, 'x'));
                },
              }),
          );
        } else {
          interceptor.reply(status, '');
        }
      }
    },
    received: () => received,
    close: async () => {
      nock.abortPendingRequests();
      nock.cleanAll();
      nock.enableNetConnect();
      nock.restore();
    },
  };
};

describeHttpForwarderContract('node-fetch against a loopback server', make, loopbackPeer);
describeHttpForwarderContract('node-fetch against nock', make, nockPeer);

describe('NodeFetchHttpForwarder (beyond the contract)', () => {
  const listen = async (server: Server): Promise<string> => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const close = (server: Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });

  describe('its default user-agent', () => {
    /** The headers a loopback server received, and the raw header lines (to count repeats). */
    const receive = async (headers: Record<string, string>): Promise<{ headers: IncomingHttpHeaders; raw: string[] }> => {
      let got: { headers: IncomingHttpHeaders; raw: string[] } = { headers: {}, raw: [] };
      const server = createServer((req, res) => {
        got = { headers: req.headers, raw: req.rawHeaders };
        req.resume();
        req.on('end', () => res.writeHead(200).end());
      });
      const url = await listen(server);
      try {
        expect(await make().send({ url, method: 'POST', headers, json: {} })).to.include({ ok: true });
        return got;
      } finally {
        await close(server);
      }
    };
    const userAgentLines = (raw: string[]): string[] => raw.filter((_, i) => i % 2 === 1 && raw[i - 1].toLowerCase() === 'user-agent');

    it('is sent when the action gives none', async () => {
      expect(userAgentLines((await receive({ 'X-Token': 'a' })).raw)).to.deep.equal(['agent-gateway']);
    });

    it("is replaced by the action's user-agent in any case, never sent beside it", async () => {
      for (const name of ['user-agent', 'User-Agent', 'USER-AGENT']) {
        const got = await receive({ [name]: 'my-agent/1.0' });
        expect(userAgentLines(got.raw), name).to.deep.equal(['my-agent/1.0']);
        expect(got.headers['user-agent'], name).to.equal('my-agent/1.0');
      }
    });

    it("keeps the action's Content-Type in any case", async () => {
      const got = await receive({ 'Content-Type': 'application/vnd.api+json' });
      expect(got.raw.filter((_, i) => i % 2 === 0 && got.raw[i].toLowerCase() === 'content-type')).to.have.length(1);
      expect(got.headers['content-type']).to.equal('application/vnd.api+json');
    });
  });

  // docs/triggers.md: a redirect is recorded as a failure with its status and not followed, so the
  // action's headers (its credentials) and body never reach an address the receiver chose.
  for (const status of [301, 302, 303, 307, 308]) {
    it(`does not follow a ${status} to another host, and records it as the failure without retrying`, async () => {
      const elsewhere: string[] = [];
      const other = createServer((req, res) => {
        elsewhere.push(`${req.method} ${req.headers.authorization ?? ''}`);
        res.writeHead(200).end();
      });
      const otherUrl = await listen(other);
      const first = createServer((req, res) => {
        req.resume();
        res.writeHead(status, { location: `${otherUrl}/steal` }).end();
      });
      const url = await listen(first);
      try {
        const result = await make().send({ url: `${url}/hook`, method: 'POST', headers: { authorization: 'Bearer secret' }, json: { a: 1 } });
        expect(result).to.include({ ok: false, status, attempts: 1, error: `HTTP ${status}` });
        expect(elsewhere).to.deep.equal([]);
      } finally {
        await close(first);
        await close(other);
      }
    });
  }
});
