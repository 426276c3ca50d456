import { DomainError } from '../../domain/errors/domain-error.js';

/** The refusal of a file over `maxBytes`: its size when known. */
export const fileTooLarge = (maxBytes: number, size?: number): DomainError =>
  new DomainError('payload_too_large', size === undefined ? 'The file is too large to download' : `The file is ${size} bytes, over the limit of ${maxBytes}`);

/**
 * A downloaded body, read up to `maxBytes`: a body announced larger (Content-Length) is refused
 * before it is read, and one that grows past the limit is given up as soon as it does — never
 * held whole in memory first. `body` is node-fetch's (a Node stream) or fetch's (a web stream).
 */
export const readAtMost = async (body: AsyncIterable<Uint8Array | string> | null, declaredLength: string | null, maxBytes: number): Promise<Uint8Array> => {
  const declared = Number(declaredLength ?? Number.NaN);
  if (declared > maxBytes) throw fileTooLarge(maxBytes, declared);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (body !== null) {
    for await (const piece of body) {
      const chunk = typeof piece === 'string' ? Buffer.from(piece) : piece;
      size += chunk.byteLength;
      // Leaving the loop cancels the stream: the rest is never fetched.
      if (size > maxBytes) throw fileTooLarge(maxBytes);
      chunks.push(chunk);
    }
  }
  return new Uint8Array(Buffer.concat(chunks));
};
