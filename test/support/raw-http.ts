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

/**
 * A POST of `payload` written by hand on a TCP socket, so the bytes are exactly the test's (no
 * client or nock in between), with its JSON answer parsed.
 */
export const postRaw = async <Body>(port: number, path: string, headers: Record<string, string>, payload: Buffer): Promise<{ status: number; body: Body }> => {
  const head = Object.entries({ host: `127.0.0.1:${port}`, connection: 'close', 'content-length': String(payload.length), ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const answer = await sendRaw(port, Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\n${head}\r\n`), payload]));
  return { status: answer.status, body: JSON.parse(answer.body) as Body };
};

/** `parts` joined: strings as UTF-8, numbers as single bytes. */
export const bytesOf = (...parts: ReadonlyArray<string | readonly number[]>): Buffer =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));
