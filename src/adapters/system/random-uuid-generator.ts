import { randomUUID } from 'node:crypto';
import type { IdGenerator } from '../../ports/id-generator.js';

export class RandomUuidGenerator implements IdGenerator {
  next(): string {
    return randomUUID();
  }
}
