import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/** A loopback TCP server holding a port, as another program would. */
export const occupyPort = async (port = 0): Promise<{ port: number; close(): Promise<void> }> => {
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as { port: number }).port;
  return { port: bound, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

/** The lowest port the system hands out to a socket bound to port 0 (Linux; 32768 where unknown). */
const ephemeralLow = (): number => {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) ? low : 32_768;
  } catch {
    return 32_768;
  }
};

/**
 * A port nothing listens on: bound, then released. It is taken below the system's ephemeral
 * range, so that no server started later on port 0 (a gateway, a fake peer) can be given it: one
 * taken from that range was free to be handed to the next gateway, and a test that meant "nothing
 * listens there" then spoke to that gateway.
 */
export const closedPort = async (): Promise<number> => {
  const low = ephemeralLow();
  if (low > 10_000) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const candidate = 10_000 + Math.floor(Math.random() * (low - 10_000));
      const held = await occupyPort(candidate).catch(() => undefined);
      if (held === undefined) continue;
      await held.close();
      return held.port;
    }
  }
  const held = await occupyPort();
  await held.close();
  return held.port;
};
