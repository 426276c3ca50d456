import { createServer, type IncomingMessage } from 'node:http';
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
