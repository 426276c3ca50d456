import { createServer, type Server } from 'node:net';

/** A loopback TCP server holding a port, as another program would. */
export const occupyPort = async (): Promise<{ port: number; close(): Promise<void> }> => {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

/** A port nothing listens on: bound, then released. */
export const closedPort = async (): Promise<number> => {
  const held = await occupyPort();
  await held.close();
  return held.port;
};
