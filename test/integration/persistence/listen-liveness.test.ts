import { expect } from 'chai';
import { createServer, connect, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { createPino, PinoLogger } from '../../../src/adapters/logging/pino-logger.js';
import { listenOnPostgres } from '../../../src/adapters/persistence/database.js';
import { waitFor } from '../../support/http.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../../support/postgres.js';

/**
 * A loopback TCP proxy to PostgreSQL whose open connections can be made silent — nothing
 * forwarded either way, nothing closed — as a NAT or a load balancer that dropped them does.
 * Connections made after that are forwarded again.
 */
const startSilencingProxy = async (target: URL): Promise<{ url: string; silence(): void; close(): Promise<void> }> => {
  const pairs: Array<[Socket, Socket]> = [];
  const silenced: Socket[] = [];
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    client.pipe(upstream).pipe(client);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop);
    upstream.on('error', drop);
    pairs.push([client, upstream]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    silence: () => {
      for (const [client, upstream] of pairs.splice(0)) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
        // Kept open, as a silent peer would be; destroyed at close.
        silenced.push(client, upstream);
      }
    },
    close: async () => {
      for (const socket of [...silenced.splice(0), ...pairs.splice(0).flat()]) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
describeWithPostgres('listening for notifications on PostgreSQL: a connection gone silent', function () {
  this.timeout(60_000);
  let scratch: ScratchDatabase | undefined;

  afterEach(async () => {
    await scratch?.drop();
    scratch = undefined;
  });

  it('counts as down within its liveness bounds (no error, no end comes), reconnects, and hears notifications again', async () => {
    scratch = await createScratchDatabase();
    const proxy = await startSilencingProxy(new URL(scratch.url));
    const changes: boolean[] = [];
    const messages: string[] = [];
    const listener = { onMessage: (payload: string) => messages.push(payload), onLiveChange: (live: boolean) => changes.push(live) };
    const notify = async (payload: string): Promise<void> => {
      const client = new pg.Client({ connectionString: scratch!.url });
      await client.connect();
      try {
        await client.query('select pg_notify($1, $2)', ['agw_liveness_test', payload]);
      } finally {
        await client.end();
      }
    };
    const unsubscribe = await listenOnPostgres(proxy.url, 'agw_liveness_test', listener, new PinoLogger(createPino('silent')), {
      everyMs: 200,
      timeoutMs: 500,
    });
    try {
      expect(changes).to.deep.equal([true]);
      await notify('before');
      await waitFor(() => messages.includes('before'), 15_000, 'the notification before');
      proxy.silence();
      // Before: the connection counted as live for good, and a notification sent now was never heard.
      await waitFor(() => changes.length >= 2, 15_000, 'the silent connection to count as down');
      expect(changes.slice(0, 2)).to.deep.equal([true, false]);
      await waitFor(() => changes.at(-1) === true, 15_000, 'a new connection');
      await notify('after');
      await waitFor(() => messages.includes('after'), 15_000, 'the notification after the reconnection');
    } finally {
      await unsubscribe();
      await proxy.close();
    }
  });
});
