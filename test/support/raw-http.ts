import { connect } from 'node:net';

/** One answer read off a raw connection, up to the server closing it. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * Writes `bytes` on a new connection (`end`: then closes its side) and waits for the server to
 * close it, returning what it answered. fetch cannot send these: it refuses to build them.
 */
export const sendRaw = (port: number, bytes: string | Buffer, { end = false } = {}): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? 0), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(bytes);
    if (end) socket.end();
  });
