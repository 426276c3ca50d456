import { createHash, randomUUID } from 'node:crypto';
import type { IdGenerator } from '../../ports/id-generator.js';

/**
 * The UUID of a name: its SHA-256's first 16 bytes as an RFC 9562 version 8 UUID (a v4 from
 * `randomUUID` never equals one, their version digits differ).
 */
export const uuidOfName = (name: string): string => {
  const bytes = createHash('sha256').update(`agent-gateway:${name}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x80;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

export class RandomUuidGenerator implements IdGenerator {
  next(): string {
    return randomUUID();
  }

  named(name: string): string {
    return uuidOfName(name);
  }
}
