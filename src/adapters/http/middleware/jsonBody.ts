import type { IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import bourne from '@hapi/bourne';
import type { Middleware } from 'koa';
import { DomainError } from '../../../domain/errors/DomainError.js';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body (see jsonBody); `undefined` when the request had none. */
    body?: unknown;
    /** The body's exact bytes (after any content-encoding), for signature checks. */
    rawBytes?: Buffer;
  }
}

const hasBody = (headers: IncomingMessage['headers']): boolean =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/** `application/json` or any `+json` type, parameters (charset) ignored, case-insensitive. */
const isJson = (contentType: string | undefined): boolean => {
  if (contentType === undefined) return false;
  const semicolon = contentType.indexOf(';');
  const type = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return type === 'application/json' || (type.endsWith('+json') && /^[a-z0-9!#$&^_.-]+\/[a-z0-9!#$&^_.+-]+$/.test(type));
};

const decoders: Record<string, (() => NodeJS.ReadWriteStream) | undefined> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * Reads the whole body, refusing more than `limit` bytes (after decompression).
 * Chunks are collected by hand rather than through a generic stream helper: this runs on
 * every POST, and the hand-written loop costs a fraction of raw-body + inflation + co-body.
 */
const readBytes = (req: IncomingMessage, limit: number, tooLarge: () => DomainError): Promise<Buffer> => {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let source: NodeJS.ReadableStream = req;
  if (encoding !== 'identity') {
    const decoder = decoders[encoding];
    if (decoder === undefined) return Promise.reject(new DomainError('unsupported_media_type', 'Unsupported body encoding'));
    const inflate = decoder();
    req.pipe(inflate);
    source = inflate;
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanUp = (): void => {
      source.removeListener('data', onData);
      source.removeListener('end', onEnd);
      source.removeListener('error', onError);
      req.removeListener('aborted', onAborted);
    };
    const fail = (error: Error): void => {
      cleanUp();
      if (source !== req) req.unpipe(source as unknown as NodeJS.WritableStream);
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limit) fail(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanUp();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
    };
    const onError = (): void => fail(new DomainError('invalid_input', 'Invalid request body'));
    const onAborted = (): void => fail(new DomainError('invalid_input', 'Request body was cut off'));
    source.on('data', onData);
    source.once('end', onEnd);
    source.once('error', onError);
    req.once('aborted', onAborted);
  });
};

/**
 * Parses a JSON request body into `ctx.request.body`, keeping its exact bytes in
 * `ctx.request.rawBytes` for signature checks. A body of another type is a 415, malformed
 * JSON (or JSON that sets `__proto__`) a 400, a body over `limit` bytes a 413 — also when it
 * is compressed (gzip, deflate, br) or chunked. A request without a body gets `undefined`.
 */
export const jsonBody = (limit: number): Middleware => {
  const tooLarge = (): DomainError => new DomainError('payload_too_large', `Request body is larger than ${limit} bytes`);
  return async (ctx, next) => {
    const headers = ctx.req.headers;
    if (!hasBody(headers)) {
      ctx.request.body = undefined;
      return next();
    }
    if (!isJson(headers['content-type'])) {
      throw new DomainError('unsupported_media_type', 'Content-Type must be application/json');
    }
    if (Number(headers['content-length']) > limit) throw tooLarge();
    const bytes = await readBytes(ctx.req, limit, tooLarge);
    const text = bytes.toString('utf8');
    let parsed: unknown;
    try {
      // bourne: JSON.parse that refuses `__proto__` keys (prototype poisoning of later merges).
      parsed = text.trim() === '' ? undefined : bourne.parse(text, { protoAction: 'error' });
    } catch {
      throw new DomainError('invalid_input', 'Invalid JSON body');
    }
    ctx.request.rawBytes = bytes;
    ctx.request.body = parsed;
    return next();
  };
};
