import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** A request Node's HTTP parser or server refused before the app saw it (or, for a timeout, while the app waited for its body). */
export interface RejectedRequest {
  /** The id sent back in `x-request-id`: the one the app gave the request when it got that far, else a new UUID. */
  readonly requestId: string;
  readonly status: number;
  /** Node's error code (`HPE_INVALID_HEADER_TOKEN`, `ERR_HTTP_REQUEST_TIMEOUT`, …) or the gateway's own (`MISSING_HOST`, `EXPECTATION_FAILED`). */
  readonly code: string;
}

/** Told of each rejected request once it is answered (a log line, the metrics). */
export type RejectionObserver = (rejection: RejectedRequest) => void;

/** Parser errors about how the body is delimited (chunked encoding, Content-Length, Transfer-Encoding). */
const FRAMING = new Set([
  'HPE_INVALID_CHUNK_SIZE',
  'HPE_CHUNK_EXTENSIONS_OVERFLOW',
  'HPE_INVALID_CONTENT_LENGTH',
  'HPE_UNEXPECTED_CONTENT_LENGTH',
  'HPE_INVALID_TRANSFER_ENCODING',
  'HPE_INVALID_EOF_STATE',
  'HPE_STRICT',
]);

/** The status and `{error}` of a client error, by Node's code; undefined: not an answer, only a broken connection. */
export const clientErrorAnswer = (code: string | undefined): { readonly status: number; readonly error: string } | undefined => {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, error: 'Request timed out (headers or body not received in time)' };
  if (code === undefined || !code.startsWith('HPE_')) return undefined;
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, error: 'Request headers too large' };
  // 400, not 501: the method is not one HTTP defines, so the request itself is malformed.
  if (code === 'HPE_INVALID_METHOD') return { status: 400, error: 'Unknown HTTP method' };
  if (code === 'HPE_INVALID_HEADER_TOKEN' || code === 'HPE_INVALID_HEADER_VALUE' || code === 'HPE_LF_EXPECTED' || code === 'HPE_CR_EXPECTED')
    return { status: 400, error: 'Invalid header' };
  if (FRAMING.has(code)) return { status: 400, error: 'Malformed request body framing' };
  return { status: 400, error: 'Malformed HTTP request' };
};

/** The response in progress on a socket, when the parser got as far as handing the request to the app. */
const responseOf = (socket: Socket): ServerResponse | undefined => (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage ?? undefined;

/**
 * Answers a request Node's HTTP server refused (its `clientError` event): malformed request
 * line, headers or body framing, headers too large, headers or body not received in time. Node's
 * own answer is a bare status line; this one is a whole response with `{error}` and an
 * `x-request-id`, as every other answer has (docs/api.md), and closes the connection, whose
 * bytes can no longer be trusted. The request's bytes (`err.rawPacket`) are never echoed or
 * logged: they may hold keys. A connection the caller reset, one that cannot be written, one
 * whose response has started, or one that timed out without sending a byte is only closed.
 * Returns what was answered, for the log; undefined when nothing was, or when the request had
 * reached the app (its body is what failed): then it is answered through its response, with the
 * id the app gave it, and the request log writes its line and counts it, with this status.
 */
export const answerClientError = (error: NodeJS.ErrnoException, socket: Socket): RejectedRequest | undefined => {
  // Node starts the headers timeout when a connection opens: one that never sent a byte (a
  // browser's preconnect, a load balancer's TCP check, a port scan) made no request, so it is
  // closed unanswered, neither logged nor counted. An idle keep-alive connection never gets here
  // (Node stops its timeouts between requests; keepAliveTimeout closes it).
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && (socket.bytesRead === 0 || answeredBeforeBody.has(socket))) {
    socket.destroy();
    return undefined;
  }
  const answer = clientErrorAnswer(error.code);
  const res = responseOf(socket);
  if (answer === undefined || !socket.writable || res?.headersSent) {
    socket.destroy();
    return undefined;
  }
  if (res !== undefined) {
    // The app, still waiting for the body, then fails to read it; its answer is not sent (the
    // headers are), and its log line has this status.
    const given = res.getHeader('x-request-id');
    answerThrough(res, typeof given === 'string' ? given : randomUUID(), answer.status, answer.error);
    return undefined;
  }
  const rejection = { requestId: randomUUID(), status: answer.status, code: error.code ?? 'unknown' };
  writeRaw(socket, rejection, answer.error);
  return rejection;
};

/** HTTP/1.1 requires Host (RFC 9112, 3.2): Node refuses a request without one with a bare 400 unless the server answers it. */
export const missingHost = (req: IncomingMessage): boolean => req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && req.headers.host === undefined;

/**
 * A request's body is delimited by Content-Length or by chunked coding only: Node's parser reads a
 * `Transfer-Encoding: gzip, chunked` body as chunked and hands the app the still-coded bytes, so
 * any Transfer-Encoding but `chunked` alone is refused (501, RFC 9112 6.1) before the app reads it.
 */
export const unsupportedTransferEncoding = (req: IncomingMessage): boolean => {
  const coding = req.headers['transfer-encoding'];
  return coding !== undefined && coding.trim().toLowerCase() !== 'chunked';
};

/** Connections whose request was answered before its body had all arrived, until that body ends. */
const answeredBeforeBody = new WeakSet<Socket>();

/**
 * Called by whatever answers a request, before its answer is written. An answer given while the
 * request's body has not all arrived (a 401 before the key's body is read, a 413 for a
 * Content-Length over the limit, a 503 of a held request) keeps the connection, as HTTP/1.1
 * wants (RFC 9112 9.6): a client that sends its whole body before it reads the answer (Python's
 * http.client, requests) must still get it, not a reset. Node reads the rest of the body and
 * drops it. Should the rest never come, Node's request timeout ends the connection; the request
 * was answered already, so that timeout writes nothing more, logs nothing and counts nothing
 * (answerClientError). Two property reads on the request path; a set entry in that case only.
 */
export const markAnsweredBeforeBody = (req: IncomingMessage): void => {
  if (req.complete || !announcesBody(req)) return;
  const { socket } = req;
  answeredBeforeBody.add(socket);
  req.once('end', () => answeredBeforeBody.delete(socket));
};

/** Whether the request announces a body (an empty Content-Length is none); a request without one is complete once its headers are read. */
const announcesBody = ({ headers }: IncomingMessage): boolean =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/** The methods the endpoints take, for the `Allow` of a refused CONNECT. */
const ENDPOINT_METHODS = 'GET, HEAD, POST, DELETE';

/**
 * Answers a CONNECT (Node's `connect` event: without a listener Node closes the connection without
 * a word): 405, this server tunnels nothing, and the connection is closed.
 */
export const answerConnect = (socket: Socket): RejectedRequest | undefined => {
  if (!socket.writable) {
    socket.destroy();
    return undefined;
  }
  const rejection = { requestId: randomUUID(), status: 405, code: 'CONNECT_NOT_ALLOWED' };
  writeRaw(socket, rejection, 'Method CONNECT is not allowed (this server is not a proxy)', `allow: ${ENDPOINT_METHODS}\r\n`);
  return rejection;
};

/** Answers a request through its response (the parser accepted it), closing the connection. */
export const answerRejected = (res: ServerResponse, status: number, code: string, error: string): RejectedRequest => {
  const requestId = randomUUID();
  answerThrough(res, requestId, status, error);
  return { requestId, status, code };
};

const answerThrough = (res: ServerResponse, requestId: string, status: number, error: string): void => {
  const body = JSON.stringify({ error });
  res.shouldKeepAlive = false;
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    connection: 'close',
  });
  // The rest of the request may never come (or never end): the connection is closed once the
  // answer is handed to the system, not when the caller closes its side (allowHalfOpen), and
  // the request is ended as cut off, or an app waiting for its body would wait forever (Node
  // no longer ends a request whose response has finished).
  res.end(body, () => {
    res.req.destroy();
    res.socket?.destroy();
  });
};

const writeRaw = (socket: Socket, { requestId, status }: RejectedRequest, error: string, extraHeaders = ''): void => {
  const body = JSON.stringify({ error });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\n` +
      'connection: close\r\n' +
      extraHeaders +
      '\r\n' +
      body,
    // The server keeps connections half-open (allowHalfOpen): a caller that never closes its side
    // would hold this one; it is closed once the answer is handed to the system.
    () => socket.destroy(),
  );
};

const REASONS: Record<number, string> = { 400: 'Bad Request', 405: 'Method Not Allowed', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };
